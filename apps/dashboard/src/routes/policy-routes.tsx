/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { PoliciesPage, type PolicyAcknowledgementWire, type PolicyValues } from "../pages/policies-page.tsx";
import type { Page, PolicyWire } from "../wire.ts";

const DONE: Record<string, string> = { published: "Policy version published." };

/** The policies page: each current version with who acknowledged it; publish a version. */
export function registerPolicyRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const listPage = async (c: Context<DashboardEnv>, values: PolicyValues = {}, error?: ReturnType<typeof refusalOf>) => {
    const query = { cursor: c.req.query("cursor") || undefined };
    const policies = await kit.run<Page<PolicyWire>>(c, { name: "get_policies", input: { ...query } });
    const acks = await Promise.all(policies.items.map((p) => kit.run<{ items: PolicyAcknowledgementWire[] }>(c, { name: "list_policy_acknowledgements", input: { policy_id: p.id, limit: 100 } })));
    const acknowledgements = new Map(policies.items.map((p, i) => [p.id, acks[i]?.items ?? []]));
    return kit.page(c, { title: "Policies", current: "policies", status: error?.status }, <PoliciesPage policies={policies} acknowledgements={acknowledgements} query={query} values={values} idempotencyKey={kit.newKey()} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };

  app.get("/policies", (c) => listPage(c));
  app.post("/policies", async (c) => {
    const form = await readForm(c);
    const values = { name: form.text("name"), body: form.raw("body"), required: form.text("required") === "true" };
    try {
      await kit.run(c, { name: "publish_policy", input: values, idempotencyKey: form.text("idempotency_key") });
      return c.redirect("/policies?done=published", 303);
    } catch (err) {
      return listPage(c, values, refusalOf(err, c.get("requestId")));
    }
  });
}
