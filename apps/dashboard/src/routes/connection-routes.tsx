/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, viewerOf, type PageKit } from "../page-kit.tsx";
import { ConnectionsPage } from "../pages/connections-page.tsx";
import type { ConnectionWire, Page } from "../wire.ts";

const DONE: Record<string, string> = { disconnected: "Disconnected: the client's tokens no longer work; it must be authorized again." };

/** The Connections page (DESIGN §2b): list_connections and disconnect_connection through the executor. */
export function registerConnectionRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const listPage = async (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) => {
    const query = { cursor: c.req.query("cursor") || undefined };
    const connections = await kit.run<Page<ConnectionWire>>(c, { name: "list_connections", input: { ...query } });
    const canDisconnect = viewerOf(c.get("principal"))?.role !== "viewer";
    return kit.page(c, { title: "Connections", current: "connections", status: error?.status }, <ConnectionsPage connections={connections} query={query} canDisconnect={canDisconnect} newKey={kit.newKey} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };

  app.get("/connections", (c) => listPage(c));
  app.post("/connections/:id/disconnect", async (c) => {
    const form = await readForm(c);
    try {
      await kit.run(c, { name: "disconnect_connection", input: { connection_id: c.req.param("id") }, idempotencyKey: form.text("idempotency_key") });
      return c.redirect("/connections?done=disconnected", 303);
    } catch (err) {
      return listPage(c, refusalOf(err, c.get("requestId")));
    }
  });
}
