/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { Confirmation } from "../components/confirm.tsx";
import { registerConfirmedAction, runsOperation } from "../confirm-step.tsx";
import { readForm, type FormInput } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { CredentialsPage } from "../pages/credentials-page.tsx";
import { IssueCredentialPage, type IssueValues } from "../pages/issue-credential-page.tsx";
import { IssuedCredentialPage } from "../pages/revealed-secret-page.tsx";
import type { AiAccountWire, CredentialWire, IssuedWire, Page } from "../wire.ts";

const DONE: Record<string, string> = { revoked: "Credential revoked: it stops working on its next request." };

/** The credentials pages: list, issue (the token shown once, and the MCP configuration), rotate with overlap, revoke. */
export function registerCredentialRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  // The accounts for names and the issue form's choice: the first page of 100 covers a workspace's usual few.
  const accounts = (c: Context<DashboardEnv>) => kit.run<Page<AiAccountWire>>(c, { name: "list_ai_accounts", input: { limit: 100 } }).then((p) => p.items);

  const listPage = async (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) => {
    const query = { ai_account_id: c.req.query("ai_account_id") || undefined, cursor: c.req.query("cursor") || undefined };
    const [credentials, all] = await Promise.all([kit.run<Page<CredentialWire>>(c, { name: "list_credentials", input: { ...query } }), accounts(c)]);
    return kit.page(c, { title: "Credentials", current: "credentials", status: error?.status }, <CredentialsPage credentials={credentials} accounts={all} query={query} newKey={kit.newKey} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };
  const issueForm = async (c: Context<DashboardEnv>, values: IssueValues, error?: ReturnType<typeof refusalOf>) =>
    kit.page(c, { title: "Issue a credential", current: "credentials", status: error?.status }, <IssueCredentialPage accounts={await accounts(c)} values={values} idempotencyKey={kit.newKey()} error={error?.error} />);
  const revealed = async (c: Context<DashboardEnv>, issued: IssuedWire, rotatedFrom?: string) => {
    const account = await kit.run<AiAccountWire>(c, { name: "get_ai_account", input: { ai_account_id: issued.credential.ai_account_id } });
    return kit.page(c, { title: rotatedFrom === undefined ? "Credential issued" : "Credential rotated", current: "credentials", status: 201 }, <IssuedCredentialPage credential={issued.credential} token={issued.token} mcpConfig={issued.mcp_config} accountName={account.friendly_name} rotatedFrom={rotatedFrom} />);
  };

  app.get("/credentials", (c) => listPage(c));
  app.get("/credentials/new", (c) => issueForm(c, { ai_account_id: c.req.query("ai_account_id") }));
  app.post("/credentials", async (c) => {
    const form = await readForm(c);
    const values = issueValues(form);
    try {
      const issued = await kit.run<IssuedWire>(c, {
        name: "issue_credential",
        input: {
          ai_account_id: values.ai_account_id,
          tier: values.tier,
          scopes: values.scopes,
          name: values.name,
          ...(values.mcp_config === true ? { form: "mcp_config", ...(values.toolsets.length > 0 ? { toolsets: values.toolsets } : {}) } : {}),
        },
        idempotencyKey: form.text("idempotency_key"),
      });
      return revealed(c, issued);
    } catch (err) {
      return issueForm(c, values, refusalOf(err, c.get("requestId")));
    }
  });
  app.post("/credentials/:id/rotate", async (c) => {
    const id = c.req.param("id");
    const form = await readForm(c);
    try {
      const issued = await kit.run<IssuedWire>(c, { name: "rotate_credential", input: { credential_id: id, overlap_window: form.text("overlap_window") }, idempotencyKey: form.text("idempotency_key") });
      return revealed(c, issued, id);
    } catch (err) {
      return listPage(c, refusalOf(err, c.get("requestId")));
    }
  });
  // Revoking asks first, on a page of its own (a bare POST gets that page too).
  const revokeConfirmation = async (c: Context<DashboardEnv>, id: string): Promise<Confirmation> => {
    const credential = await kit.run<CredentialWire>(c, { name: "get_credential", input: { credential_id: id } });
    const account = await kit.run<AiAccountWire>(c, { name: "get_ai_account", input: { ai_account_id: credential.ai_account_id } });
    return {
      title: `Revoke the credential ${credential.name}?`,
      consequences: (
        <>
          <p>
            The credential <strong>{credential.name}</strong> of <strong>{account.friendly_name}</strong> stops working on its next request; whatever uses it gets 401.
          </p>
          <p>A revoked credential cannot be restored: issue a new one. Rotating it instead keeps the old one working for an overlap window.</p>
        </>
      ),
      action: `/credentials/${id}/revoke`,
      button: `Revoke ${credential.name}`,
      cancel: "/credentials",
      idempotencyKey: kit.newKey(),
    };
  };
  registerConfirmedAction(app, kit, { path: "/credentials/:id/revoke", current: "credentials", question: revokeConfirmation, refused: listPage, act: runsOperation(kit, "revoke_credential", (id) => ({ credential_id: id }), "/credentials?done=revoked") });
}

function issueValues(form: FormInput): IssueValues & { ai_account_id: string; tier: string; scopes: string[]; name: string; toolsets: string[] } {
  return { ai_account_id: form.text("ai_account_id"), tier: form.text("tier"), scopes: form.all("scopes"), name: form.text("name"), mcp_config: form.text("mcp_config") === "1", toolsets: form.all("toolsets") };
}
