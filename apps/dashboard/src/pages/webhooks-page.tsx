/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { DoneNotice, ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { TableRegion } from "../components/table-region.tsx";
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

/** Delivery states a filter offers. */
export const DELIVERY_STATES = ["pending", "retrying", "delivered", "dead"] as const;

/** The webhooks: each with its account, destination and health; the form that adds one. */
export function WebhooksPage(props: { webhooks: Page<WebhookWire>; accounts: AiAccountWire[]; query: Record<string, string | undefined>; values: WebhookValues; idempotencyKey: string; error?: ShownError | undefined; done?: string | undefined }) {
  const names = new Map(props.accounts.map((a) => [a.id, a.friendly_name]));
  const v = props.values;
  return (
    <>
      <h1>Webhooks</h1>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      {props.webhooks.items.length === 0 ? (
        <EmptyState title="No webhooks yet.">
          <p>A webhook pushes an AI account's received messages to a URL, signed (Standard Webhooks).</p>
        </EmptyState>
      ) : (
        <TableRegion label="Webhooks">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">AI account</th>
                <th scope="col">Destination</th>
                <th scope="col">Health</th>
                <th scope="col" class="num">Waiting</th>
                <th scope="col" class="num">Dead</th>
              </tr>
            </thead>
            <tbody>
              {props.webhooks.items.map((w) => (
                <tr>
                  <td>
                    <a href={`/webhooks/${w.id}`}>{w.name}</a>
                  </td>
                  <td>{names.get(w.ai_account_id) ?? w.ai_account_id}</td>
                  <td>
                    <code>{w.url}</code>
                  </td>
                  <td>
                    <StateBadge state={w.health.status} />
                  </td>
                  <td class="num">{(w.outbox.pending ?? 0) + (w.outbox.retrying ?? 0)}</td>
                  <td class="num">{w.outbox.dead ?? 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <Pagination path="/webhooks" query={props.query} nextCursor={props.webhooks.next_cursor} />
      <h2>Add a webhook</h2>
      <form class="panel stack" method="post" action="/webhooks">
        <input type="hidden" name="idempotency_key" value={props.idempotencyKey} />
        <div>
          <label for="wh-account">AI account</label>
          <select id="wh-account" name="ai_account_id" required>
            {props.accounts
              .filter((a) => a.state !== "revoked")
              .map((a) => (
                <option value={a.id} selected={v.ai_account_id === a.id}>
                  {a.friendly_name}
                </option>
              ))}
          </select>
        </div>
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
        <div>
          <label for="wh-priority">Lowest priority pushed</label>
          <select id="wh-priority" name="min_priority">
            {["", "low", "normal", "high", "urgent"].map((p) => (
              <option value={p} selected={(v.min_priority ?? "") === p}>
                {p === "" ? "any" : p}
              </option>
            ))}
          </select>
        </div>
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
      <p>
        <a href="/webhooks">Webhooks</a>
      </p>
      <h1>{w.name}</h1>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <section class="panel">
        <dl class="facts">
          <dt>AI account</dt>
          <dd>{props.accountName}</dd>
          <dt>Destination</dt>
          <dd>
            <code>{w.url}</code>
          </dd>
          <dt>Health</dt>
          <dd>
            <StateBadge state={w.health.status} />
            {w.health.last_failure_reason === null ? null : <span class="hint"> last failure: {w.health.last_failure_reason}</span>}
          </dd>
          <dt>Last success</dt>
          <dd>
            <LocalTime at={w.health.last_success_at} />
          </dd>
          <dt>Filter</dt>
          <dd>
            {w.filter.templates === null ? "every template" : w.filter.templates.join(", ")}; {w.filter.min_priority === null ? "any priority" : `${w.filter.min_priority} and up`}
          </dd>
          <dt>Signing keys</dt>
          <dd>
            {w.signing_keys.map((k) => (
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
            ))}
          </dd>
        </dl>
      </section>
      <div class="actions">
        <form method="post" action={`/webhooks/${w.id}/rotate-signing-key`} class="inline-form">
          <input type="hidden" name="idempotency_key" value={props.newKey()} />
          <div>
            <label for="wh-overlap">The old key also signs for</label>
            <select id="wh-overlap" name="overlap_window">
              <option value="PT1H">1 hour</option>
              <option value="P1D" selected>
                1 day
              </option>
              <option value="P7D">7 days</option>
            </select>
          </div>
          <button type="submit" class="secondary">
            Rotate the signing key
          </button>
        </form>
        <ActionForm action={`/webhooks/${w.id}/delete`} label="Delete the webhook" idempotencyKey={props.newKey()} tone="danger" />
      </div>
      <h2>Deliveries</h2>
      <form class="filters" method="get" action={`/webhooks/${w.id}`}>
        <div>
          <label for="delivery-state">State</label>
          <select id="delivery-state" name="state">
            <option value="">any</option>
            {DELIVERY_STATES.map((s) => (
              <option value={s} selected={props.query.state === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" class="secondary">Show</button>
        </div>
      </form>
      {props.deliveries.items.length === 0 ? (
        <EmptyState title="No deliveries match." />
      ) : (
        <TableRegion label="Deliveries">
          <table>
            <thead>
              <tr>
                <th scope="col">Created</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col" class="num">Attempts</th>
                <th scope="col">Last answer</th>
              </tr>
            </thead>
            <tbody>
              {props.deliveries.items.map((d) => (
                <tr>
                  <td>
                    <LocalTime at={d.created_at} />
                  </td>
                  <td>
                    <code>{d.event_type}</code>
                  </td>
                  <td>
                    <StateBadge state={d.state} />
                  </td>
                  <td class="num">{d.attempts}</td>
                  <td>{d.last_status ?? d.last_error ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <Pagination path={`/webhooks/${w.id}`} query={props.query} nextCursor={props.deliveries.next_cursor} />
    </>
  );
}

/** The page after adding a webhook or rotating its key: the signing secret, once. */
export function WebhookSecretPage(props: { webhook: WebhookWire; secret: string; rotated: boolean }) {
  return (
    <>
      <p>
        <a href={`/webhooks/${props.webhook.id}`}>{props.webhook.name}</a>
      </p>
      <h1>{props.rotated ? "Signing key rotated" : "Webhook added"}</h1>
      <p>Deliveries are signed with this secret (Standard Webhooks); the receiver verifies them with it.{props.rotated ? " The previous key keeps signing beside it until its overlap ends." : ""}</p>
      <SecretReveal label="The signing secret." value={props.secret} id="signing-secret" />
      <p>
        <a href={`/webhooks/${props.webhook.id}`}>Done</a>
      </p>
    </>
  );
}
