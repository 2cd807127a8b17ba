/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { Confirmation } from "../components/confirm.tsx";
import { registerConfirmedAction, runsOperation } from "../confirm-step.tsx";
import type { refusalOf} from "../page-kit.tsx";
import { viewerOf, type PageKit } from "../page-kit.tsx";
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
  // Disconnecting asks first, on a page of its own (a bare POST gets that page too).
  const disconnectConfirmation = async (c: Context<DashboardEnv>, id: string): Promise<Confirmation> => {
    // Named from the first 100 grants (a workspace's usual few); past them the page says "this
    // client" and the disconnect itself decides (404 for an id not of this workspace).
    const found = (await kit.run<Page<ConnectionWire>>(c, { name: "list_connections", input: { limit: 100 } })).items.find((k) => k.id === id);
    const client = found === undefined ? "this client" : (found.client_name ?? found.redirect_host);
    return {
      title: `Disconnect ${client}?`,
      consequences: (
        <>
          <p>
            The access and refresh tokens of <strong>{client}</strong>
            {found === undefined ? "" : ` (acting as ${found.ai_account.friendly_name})`} are revoked at once; its next request gets 401.
          </p>
          <p>To use it again, the client must be authorized again (it opens the consent page).</p>
        </>
      ),
      action: `/connections/${id}/disconnect`,
      button: `Disconnect ${client}`,
      cancel: "/connections",
      idempotencyKey: kit.newKey(),
    };
  };
  registerConfirmedAction(app, kit, { path: "/connections/:id/disconnect", current: "connections", question: disconnectConfirmation, refused: listPage, act: runsOperation(kit, "disconnect_connection", (id) => ({ connection_id: id }), "/connections?done=disconnected") });
}
