/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { Confirmation } from "../components/confirm.tsx";
import { registerConfirmedAction, runsOperation } from "../confirm-step.tsx";
import { readForm, type FormInput } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { WebhookPage, WebhookSecretPage, WebhooksPage, type WebhookValues } from "../pages/webhooks-page.tsx";
import type { AiAccountWire, DeliveryWire, Page, WebhookWire } from "../wire.ts";

const DONE: Record<string, string> = { deleted: "Webhook deleted; its waiting deliveries were dropped." };

/** The webhooks pages: list and add (the signing secret shown once), one webhook with its deliveries, rotate the key, delete. */
export function registerWebhookRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const accounts = (c: Context<DashboardEnv>) => kit.run<Page<AiAccountWire>>(c, { name: "list_ai_accounts", input: { limit: 100 } }).then((p) => p.items);
  const listPage = async (c: Context<DashboardEnv>, values: WebhookValues = {}, error?: ReturnType<typeof refusalOf>) => {
    const query = { cursor: c.req.query("cursor") || undefined };
    const [webhooks, all] = await Promise.all([kit.run<Page<WebhookWire>>(c, { name: "list_webhooks", input: { ...query } }), accounts(c)]);
    return kit.page(c, { title: "Webhooks", current: "webhooks", status: error?.status }, <WebhooksPage webhooks={webhooks} accounts={all} query={query} values={values} idempotencyKey={kit.newKey()} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };
  const webhookPage = async (c: Context<DashboardEnv>, id: string, error?: ReturnType<typeof refusalOf>) => {
    const query = { state: c.req.query("state") || undefined, cursor: c.req.query("cursor") || undefined };
    const [webhook, deliveries] = await Promise.all([kit.run<WebhookWire>(c, { name: "get_webhook", input: { webhook_id: id } }), kit.run<Page<DeliveryWire>>(c, { name: "list_webhook_deliveries", input: { webhook_id: id, ...query } })]);
    const account = await kit.run<AiAccountWire>(c, { name: "get_ai_account", input: { ai_account_id: webhook.ai_account_id } });
    return kit.page(c, { title: webhook.name, current: "webhooks", status: error?.status }, <WebhookPage webhook={webhook} accountName={account.friendly_name} deliveries={deliveries} query={query} newKey={kit.newKey} error={error?.error} />);
  };

  app.get("/webhooks", (c) => listPage(c));
  app.post("/webhooks", async (c) => {
    const form = await readForm(c);
    const values = webhookValues(form);
    try {
      const templates = (values.templates ?? "").split(",").map((t) => t.trim()).filter((t) => t !== "");
      const filter = { ...(templates.length === 0 ? {} : { templates }), ...(values.min_priority === "" ? {} : { min_priority: values.min_priority }) };
      const keyed = await kit.run<{ webhook: WebhookWire; signing_secret: string }>(c, {
        name: "create_webhook",
        input: { ai_account_id: values.ai_account_id, name: values.name, url: values.url, ...(Object.keys(filter).length === 0 ? {} : { filter }) },
        idempotencyKey: form.text("idempotency_key"),
      });
      return kit.page(c, { title: "Webhook added", current: "webhooks", status: 201 }, <WebhookSecretPage webhook={keyed.webhook} secret={keyed.signing_secret} rotated={false} />);
    } catch (err) {
      return listPage(c, values, refusalOf(err, c.get("requestId")));
    }
  });
  app.get("/webhooks/:id", (c) => webhookPage(c, c.req.param("id")));
  app.post("/webhooks/:id/rotate-signing-key", async (c) => {
    const id = c.req.param("id");
    const form = await readForm(c);
    try {
      const keyed = await kit.run<{ webhook: WebhookWire; signing_secret: string }>(c, { name: "rotate_webhook_signing_key", input: { webhook_id: id, overlap_window: form.text("overlap_window") }, idempotencyKey: form.text("idempotency_key") });
      return kit.page(c, { title: "Signing key rotated", current: "webhooks", status: 201 }, <WebhookSecretPage webhook={keyed.webhook} secret={keyed.signing_secret} rotated={true} />);
    } catch (err) {
      return webhookPage(c, id, refusalOf(err, c.get("requestId")));
    }
  });
  // Deleting asks first, on a page of its own (a bare POST gets that page too).
  const deleteConfirmation = async (c: Context<DashboardEnv>, id: string): Promise<Confirmation> => {
    const webhook = await kit.run<WebhookWire>(c, { name: "get_webhook", input: { webhook_id: id } });
    return {
      title: `Delete the webhook ${webhook.name}?`,
      consequences: (
        <>
          <p>
            <code>{webhook.url}</code> gets no more deliveries; the ones waiting are dropped.
          </p>
          <p>A deleted webhook cannot be restored: add it again (with a new signing secret).</p>
        </>
      ),
      action: `/webhooks/${id}/delete`,
      button: `Delete ${webhook.name}`,
      cancel: `/webhooks/${id}`,
      idempotencyKey: kit.newKey(),
    };
  };
  const refused = (c: Context<DashboardEnv>, refusal: ReturnType<typeof refusalOf>) => webhookPage(c, c.req.param("id") ?? "", refusal);
  registerConfirmedAction(app, kit, { path: "/webhooks/:id/delete", current: "webhooks", question: deleteConfirmation, refused, act: runsOperation(kit, "delete_webhook", (id) => ({ webhook_id: id }), "/webhooks?done=deleted") });
}

function webhookValues(form: FormInput): WebhookValues & { ai_account_id: string; name: string; url: string; min_priority: string } {
  return { ai_account_id: form.text("ai_account_id"), name: form.text("name"), url: form.text("url"), templates: form.text("templates"), min_priority: form.text("min_priority") };
}
