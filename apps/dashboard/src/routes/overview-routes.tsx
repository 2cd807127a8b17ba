/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { PageKit } from "../page-kit.tsx";
import { OverviewPage, type MessageCountsWire } from "../pages/overview-page.tsx";
import { statsWindowOf } from "../charts/workspace-history.tsx";
import type { AuditRowWire, Page, WebhookWire, WorkspaceStatsWire } from "../wire.ts";

/** The live region's id: its polls swap only it in, so they skip the history (it changes once a minute). */
const LIVE_ID = "live-overview";

/** The overview at `/`: what waits for whom, the dead letters, the webhooks' health, recent activity, the history (`?window=`). */
export function registerOverviewRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  app.get("/", async (c) => {
    const livePoll = c.req.header("HX-Target") === LIVE_ID;
    const [counts, webhooks, audit, stats] = await Promise.all([
      kit.run<MessageCountsWire>(c, { name: "count_waiting_messages", input: {} }),
      kit.run<Page<WebhookWire>>(c, { name: "list_webhooks", input: { limit: 100 } }),
      kit.run<Page<AuditRowWire>>(c, { name: "browse_audit_log", input: { limit: 8 } }),
      livePoll ? null : kit.run<WorkspaceStatsWire>(c, { name: "get_workspace_stats", input: { window: statsWindowOf(c.req.query("window")) } }),
    ]);
    const principal = c.get("principal");
    return kit.page(
      c,
      { title: "Overview", current: "overview" },
      <OverviewPage liveId={LIVE_ID} workspaceName={principal?.workspace.name ?? ""} counts={counts} webhooks={webhooks.items} audit={audit.items} stats={stats} />,
    );
  });
}
