/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { PeopleListItem } from "@agentq/core";
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { AuditPage, type AuditNames, type VerificationWire } from "../pages/audit-page.tsx";
import type { AiAccountWire, AuditRowWire, CredentialWire, Page, WebhookWire } from "../wire.ts";

/** The audit log page: browse with filters; `?verify=1` also verifies the chain and shows its head. */
export function registerAuditRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  // Names for the rows: the first 100 of each (a workspace's usual few); others show their id.
  const names = async (c: Context<DashboardEnv>): Promise<AuditNames> => {
    const page = <T,>(name: string) => kit.run<Page<T>>(c, { name, input: { limit: 100 } }).then((p) => p.items);
    // People are listed to owners and admins only: a viewer sees "a person".
    const people = kit.run<{ items: PeopleListItem[] }>(c, { name: "list_people", input: {} }).then(
      (p) => p.items,
      () => [],
    );
    const [accounts, credentials, webhooks, persons] = await Promise.all([page<AiAccountWire>("list_ai_accounts"), page<CredentialWire>("list_credentials"), page<WebhookWire>("list_webhooks"), people]);
    return {
      accounts: new Map(accounts.map((a) => [a.id, a.friendly_name])),
      credentials: new Map(credentials.map((k) => [k.id, k.name])),
      people: new Map(persons.map((p) => [p.id, p.email])),
      webhooks: new Map(webhooks.map((w) => [w.id, w.name])),
    };
  };
  app.get("/audit", async (c) => {
    const query = { activity_contains: c.req.query("activity_contains")?.trim() || undefined, message_id: c.req.query("message_id") || undefined, cursor: c.req.query("cursor") || undefined };
    const verify = c.req.query("verify") === "1";
    const known = await names(c);
    try {
      const [rows, verification] = await Promise.all([kit.run<Page<AuditRowWire>>(c, { name: "browse_audit_log", input: { ...query } }), verify ? kit.run<VerificationWire>(c, { name: "verify_audit_log", input: {} }) : Promise.resolve(null)]);
      return kit.page(c, { title: "Audit log", current: "audit" }, <AuditPage rows={rows} names={known} query={query} verification={verification} />);
    } catch (err) {
      // A malformed filter shows the page with the refusal and no rows.
      const refusal = refusalOf(err, c.get("requestId"));
      return kit.page(c, { title: "Audit log", current: "audit", status: refusal.status }, <AuditPage rows={{ items: [], next_cursor: null }} names={known} query={query} verification={null} error={refusal.error} />);
    }
  });
}
