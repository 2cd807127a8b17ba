/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { PageKit } from "../page-kit.tsx";
import { OverviewPage, type MessageCountsWire } from "../pages/overview-page.tsx";
import type { AuditRowWire, Page, WebhookWire } from "../wire.ts";

/** The overview at `/`: what waits for whom, the dead letters, the webhooks' health, recent activity. */
export function registerOverviewRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  app.get("/", async (c) => {
    const [counts, webhooks, audit] = await Promise.all([
      kit.run<MessageCountsWire>(c, { name: "count_waiting_messages", input: {} }),
      kit.run<Page<WebhookWire>>(c, { name: "list_webhooks", input: { limit: 100 } }),
      kit.run<Page<AuditRowWire>>(c, { name: "browse_audit_log", input: { limit: 8 } }),
    ]);
    const principal = c.get("principal");
    return kit.page(c, { title: "Overview", current: "overview" }, <OverviewPage workspaceName={principal?.workspace.name ?? ""} counts={counts} webhooks={webhooks.items} audit={audit.items} />);
  });
}
