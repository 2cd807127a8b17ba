/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { confirmed, type Confirmation } from "../components/confirm.tsx";
import { confirmationPage } from "../confirm-step.tsx";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { AccountPage } from "../pages/account-page.tsx";
import { AccountsPage } from "../pages/accounts-page.tsx";
import { statsWindowOf } from "../charts/workspace-history.tsx";
import type { MessageCountsWire } from "../pages/overview-page.tsx";
import type { AiAccountWire, CredentialWire, Page, WorkspaceStatsWire } from "../wire.ts";

const DONE: Record<string, string> = {
  created: "AI account created.",
  renamed: "AI account renamed.",
  frozen: "AI account frozen: its credentials get 403 SVC_FROZEN until it is unfrozen.",
  unfrozen: "AI account unfrozen.",
  revoked: "AI account revoked, with every credential it had.",
};

/** The AI accounts pages: list and create; one account with rename, freeze, unfreeze, revoke. */
export function registerAccountRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const listPage = async (c: Context<DashboardEnv>, extra: { error?: ReturnType<typeof refusalOf>; friendlyName?: string } = {}) => {
    const query = { state: c.req.query("state") || undefined, cursor: c.req.query("cursor") || undefined };
    const accounts = await kit.run<Page<AiAccountWire>>(c, { name: "list_ai_accounts", input: { ...query } });
    return kit.page(
      c,
      { title: "AI accounts", current: "accounts", status: extra.error?.status },
      <AccountsPage accounts={accounts} query={query} newKey={kit.newKey} error={extra.error?.error} done={DONE[c.req.query("done") ?? ""]} friendlyName={extra.friendlyName} />,
    );
  };
  const accountPage = async (c: Context<DashboardEnv>, id: string, error?: ReturnType<typeof refusalOf>) => {
    const [account, credentials, counts, stats] = await Promise.all([
      kit.run<AiAccountWire>(c, { name: "get_ai_account", input: { ai_account_id: id } }),
      kit.run<Page<CredentialWire>>(c, { name: "list_credentials", input: { ai_account_id: id } }),
      kit.run<MessageCountsWire>(c, { name: "count_waiting_messages", input: {} }),
      kit.run<WorkspaceStatsWire>(c, { name: "get_workspace_stats", input: { window: statsWindowOf(c.req.query("window")), ai_account_id: id } }),
    ]);
    const waiting = counts.recipients.find((r) => r.ai_account_id === account.id) ?? { pending: 0, held: 0 };
    return kit.page(
      c,
      { title: account.friendly_name, current: "accounts", status: error?.status },
      <AccountPage account={account} credentials={credentials} waiting={waiting} stats={stats} newKey={kit.newKey} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />,
    );
  };

  app.get("/accounts", (c) => listPage(c));
  app.post("/accounts", async (c) => {
    const form = await readForm(c);
    try {
      const created = await kit.run<AiAccountWire>(c, { name: "create_ai_account", input: { friendly_name: form.text("friendly_name") }, idempotencyKey: form.text("idempotency_key") });
      return c.redirect(`/accounts/${created.id}?done=created`, 303);
    } catch (err) {
      return listPage(c, { error: refusalOf(err, c.get("requestId")), friendlyName: form.text("friendly_name") });
    }
  });
  app.get("/accounts/:id", (c) => accountPage(c, c.req.param("id")));
  app.post("/accounts/:id/rename", async (c) => {
    const id = c.req.param("id");
    const form = await readForm(c);
    try {
      await kit.run(c, { name: "rename_ai_account", input: { ai_account_id: id, friendly_name: form.text("friendly_name") }, idempotencyKey: form.text("idempotency_key") });
      return c.redirect(`/accounts/${id}?done=renamed`, 303);
    } catch (err) {
      return accountPage(c, id, refusalOf(err, c.get("requestId")));
    }
  });
  // Revoking asks first, on a page of its own (a bare POST gets that page too).
  const revokeConfirmation = async (c: Context<DashboardEnv>, id: string, back: string): Promise<Confirmation> => {
    const account = await kit.run<AiAccountWire>(c, { name: "get_ai_account", input: { ai_account_id: id } });
    const returnTo = back === "/accounts" ? "/accounts" : `/accounts/${id}`;
    return {
      title: `Revoke ${account.friendly_name}?`,
      consequences: (
        <>
          <p>
            Every credential of <strong>{account.friendly_name}</strong> stops working at once, and the MCP clients connected as it are disconnected.
          </p>
          <p>A revoked AI account cannot be restored; to go on, create a new one. Freezing it instead can be undone.</p>
        </>
      ),
      action: `/accounts/${id}/revoke`,
      button: `Revoke ${account.friendly_name}`,
      cancel: returnTo,
      hidden: { back: returnTo },
      idempotencyKey: kit.newKey(),
    };
  };
  app.get("/accounts/:id/revoke", async (c) => confirmationPage(kit, c, "accounts", await revokeConfirmation(c, c.req.param("id"), c.req.query("back") ?? "")));

  for (const [action, operation, done] of [
    ["freeze", "freeze_ai_account", "frozen"],
    ["unfreeze", "unfreeze_ai_account", "unfrozen"],
    ["revoke", "revoke_ai_account", "revoked"],
  ] as const) {
    app.post(`/accounts/:id/${action}`, async (c) => {
      const id = c.req.param("id");
      const form = await readForm(c);
      if (action === "revoke" && !confirmed(form)) return confirmationPage(kit, c, "accounts", await revokeConfirmation(c, id, form.text("back")));
      try {
        await kit.run(c, { name: operation, input: { ai_account_id: id }, idempotencyKey: form.text("idempotency_key") });
        return c.redirect(`${form.text("back") === "/accounts" ? "/accounts" : `/accounts/${id}`}?done=${done}`, 303);
      } catch (err) {
        return accountPage(c, id, refusalOf(err, c.get("requestId")));
      }
    });
  }
}
