/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { AuditPage, type VerificationWire } from "../pages/audit-page.tsx";
import type { AuditRowWire, Page } from "../wire.ts";

/** The audit log page: browse with filters; `?verify=1` also verifies the chain and shows its head. */
export function registerAuditRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  app.get("/audit", async (c) => {
    const query = { activity: c.req.query("activity") || undefined, message_id: c.req.query("message_id") || undefined, cursor: c.req.query("cursor") || undefined };
    const verify = c.req.query("verify") === "1";
    try {
      const [rows, verification] = await Promise.all([kit.run<Page<AuditRowWire>>(c, { name: "browse_audit_log", input: { ...query } }), verify ? kit.run<VerificationWire>(c, { name: "verify_audit_log", input: {} }) : Promise.resolve(null)]);
      return kit.page(c, { title: "Audit log", current: "audit" }, <AuditPage rows={rows} query={query} verification={verification} />);
    } catch (err) {
      // A malformed filter shows the page with the refusal and no rows.
      const refusal = refusalOf(err, c.get("requestId"));
      return kit.page(c, { title: "Audit log", current: "audit", status: refusal.status }, <AuditPage rows={{ items: [], next_cursor: null }} query={query} verification={null} error={refusal.error} />);
    }
  });
}
