/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ConfirmLink } from "../components/confirm.tsx";
import { DELIVERY_STATES, PRIORITIES } from "@agentq/core";
import { DataTable, type Column } from "../components/data-table.tsx";
import { Facts } from "../components/facts.tsx";
import { FilterForm, SelectField, accountChoices, choicesOf } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import type { AiAccountWire, DeliveryWire, Page, WebhookWire } from "../wire.ts";
import { SecretReveal } from "./revealed-secret-page.tsx";

/** The values a webhook form is shown again with after a refusal. */
export interface WebhookValues {
  ai_account_id?: string | undefined;
  name?: string | undefined;
  url?: string | undefined;
  templates?: string | undefined;
  min_priority?: string | undefined;
}

/** How long a replaced signing key keeps signing beside its successor. */
const SIGNING_KEY_OVERLAPS = [
  { value: "PT1H", label: "1 hour" },
  { value: "P1D", label: "1 day" },
  { value: "P7D", label: "7 days" },
];

/** A webhook's name, linking to its page, under the heading `head`. */
export function webhookNameColumn(head: string): Column<WebhookWire> {
  return { head, cell: (w) => <a href={`/webhooks/${w.id}`}>{w.name}</a> };
}

/** A webhook's health and its outbox: the deliveries waiting (pending or retrying) and the dead ones. */
export const WEBHOOK_HEALTH_COLUMNS: Column<WebhookWire>[] = [
  { head: "Health", cell: (w) => <StateBadge state={w.health.status} /> },
  { head: "Waiting", num: true, cell: (w) => (w.outbox.pending ?? 0) + (w.outbox.retrying ?? 0) },
  { head: "Dead", num: true, cell: (w) => w.outbox.dead ?? 0 },
];

/** The webhooks: each with its account, destination and health; the form that adds one. */
export function WebhooksPage(props: { webhooks: Page<WebhookWire>; accounts: AiAccountWire[]; query: Record<string, string | undefined>; values: WebhookValues; idempotencyKey: string; error?: ShownError | undefined; done?: string | undefined }) {
  const names = new Map(props.accounts.map((a) => [a.id, a.friendly_name]));
  const v = props.values;
  return (
    <>
      <PageHeading title="Webhooks" done={props.done} error={props.error} />
      <DataTable
        label="Webhooks"
        rows={props.webhooks.items}
        empty={{ title: "No webhooks yet.", children: <p>A webhook pushes an AI account's received messages to a URL, signed (Standard Webhooks).</p> }}
        columns={[
          webhookNameColumn("Name"),
          { head: "AI account", cell: (w) => names.get(w.ai_account_id) ?? w.ai_account_id },
          {
            head: "Destination",
            cell: (w) => <code>{w.url}</code>,
          },
          ...WEBHOOK_HEALTH_COLUMNS,
        ]}
      />
      <Pagination path="/webhooks" query={props.query} nextCursor={props.webhooks.next_cursor} />
      <h2>Add a webhook</h2>
      <form class="panel stack" method="post" action="/webhooks">
        <input type="hidden" name="idempotency_key" value={props.idempotencyKey} />
        <SelectField
          id="wh-account"
          name="ai_account_id"
          label="AI account"
          required
          choices={accountChoices(props.accounts.filter((a) => a.state !== "revoked"))}
          selected={v.ai_account_id}
        />
        <div>
          <label for="wh-name">Name</label>
          <input id="wh-name" name="name" type="text" required maxlength={200} value={v.name ?? ""} />
        </div>
        <div>
          <label for="wh-url">URL</label>
          <input id="wh-url" name="url" type="url" required maxlength={2048} value={v.url ?? ""} aria-describedby="wh-url-hint" />
          <p class="hint" id="wh-url-hint">
            Public addresses only. It must answer a signed verification POST with a 2xx within 5 seconds.
          </p>
        </div>
        <div>
          <label for="wh-templates">Templates (optional)</label>
          <input id="wh-templates" name="templates" type="text" value={v.templates ?? ""} aria-describedby="wh-templates-hint" />
          <p class="hint" id="wh-templates-hint">
            Comma-separated; empty pushes every template.
          </p>
        </div>
        <SelectField id="wh-priority" name="min_priority" label="Lowest priority pushed" choices={choicesOf(PRIORITIES, "")} selected={v.min_priority ?? ""} />
        <div class="actions">
          <button type="submit">Add the webhook</button>
        </div>
      </form>
    </>
  );
}

/** One webhook: facts, signing keys, deliveries by state, rotate the key, delete. */
export function WebhookPage(props: { webhook: WebhookWire; accountName: string; deliveries: Page<DeliveryWire>; query: Record<string, string | undefined>; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
  const w = props.webhook;
  return (
    <>
      <PageHeading title={w.name} back={{ href: "/webhooks", label: "Webhooks" }} done={props.done} error={props.error} />
      <section class="panel">
        <Facts
          facts={[
            { term: "AI account", value: props.accountName },
            { term: "Destination", value: <code>{w.url}</code> },
            {
              term: "Health",
              value: (
                <>
                  <StateBadge state={w.health.status} />
                  {w.health.last_failure_reason === null ? null : <span class="hint"> last failure: {w.health.last_failure_reason}</span>}
                </>
              ),
            },
            { term: "Last success", value: <LocalTime at={w.health.last_success_at} /> },
            { term: "Filter", value: `${w.filter.templates === null ? "every template" : w.filter.templates.join(", ")}; ${w.filter.min_priority === null ? "any priority" : `${w.filter.min_priority} and up`}` },
            {
              term: "Signing keys",
              value: w.signing_keys.map((k) => (
                <span>
                  {k.state}
                  {k.expires_at === null ? null : (
                    <>
                      {" "}
                      until <LocalTime at={k.expires_at} />
                    </>
                  )}
                  .{" "}
                </span>
              )),
            },
          ]}
        />
      </section>
      <div class="actions">
        <form method="post" action={`/webhooks/${w.id}/rotate-signing-key`} class="inline-form">
          <input type="hidden" name="idempotency_key" value={props.newKey()} />
          <SelectField id="wh-overlap" name="overlap_window" label="The old key also signs for" choices={SIGNING_KEY_OVERLAPS} selected="P1D" />
          <button type="submit" class="secondary">
            Rotate the signing key
          </button>
        </form>
        <ConfirmLink href={`/webhooks/${w.id}/delete`} label="Delete the webhook" />
      </div>
      <h2>Deliveries</h2>
      <FilterForm action={`/webhooks/${w.id}`}>
        <SelectField id="delivery-state" name="state" label="State" choices={choicesOf(DELIVERY_STATES, "")} selected={props.query.state} />
      </FilterForm>
      <DataTable
        label="Deliveries"
        rows={props.deliveries.items}
        empty={{ title: "No deliveries match." }}
        columns={[
          { head: "Created", cell: (d) => <LocalTime at={d.created_at} /> },
          { head: "Event", cell: (d) => <code>{d.event_type}</code> },
          { head: "State", cell: (d) => <StateBadge state={d.state} /> },
          { head: "Attempts", num: true, cell: (d) => d.attempts },
          { head: "Last answer", cell: (d) => d.last_status ?? d.last_error ?? "—" },
        ]}
      />
      <Pagination path={`/webhooks/${w.id}`} query={props.query} nextCursor={props.deliveries.next_cursor} />
    </>
  );
}

/** The page after adding a webhook or rotating its key: the signing secret, once. */
export function WebhookSecretPage(props: { webhook: WebhookWire; secret: string; rotated: boolean }) {
  return (
    <>
      <PageHeading title={props.rotated ? "Signing key rotated" : "Webhook added"} back={{ href: `/webhooks/${props.webhook.id}`, label: props.webhook.name }} />
      <p>Deliveries are signed with this secret (Standard Webhooks); the receiver verifies them with it.{props.rotated ? " The previous key keeps signing beside it until its overlap ends." : ""}</p>
      <SecretReveal label="The signing secret." value={props.secret} id="signing-secret" />
      <p>
        <a href={`/webhooks/${props.webhook.id}`}>Done</a>
      </p>
    </>
  );
}
