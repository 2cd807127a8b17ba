/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { DoneNotice, ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { TableRegion } from "../components/table-region.tsx";
import type { MessageItemWire, MessageWire, Page } from "../wire.ts";

/** Message states a filter offers. */
export const MESSAGE_STATE_CHOICES = ["pending", "held", "acknowledged", "expired", "dead_lettered"] as const;

/** The messages of the workspace, filtered by state, recipient, sender and template. */
export function MessagesPage(props: { messages: Page<MessageItemWire>; query: Record<string, string | undefined>; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
  const q = props.query;
  return (
    <>
      <h1>Messages</h1>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      {/* With JavaScript the list follows the filters as they change (htmx); without, the Filter button submits them. */}
      <form class="filters panel" method="get" action="/messages" hx-get="/messages" hx-trigger="change, submit" hx-push-url="true">
        <div>
          <label for="state">State</label>
          <select id="state" name="state">
            <option value="">any</option>
            {MESSAGE_STATE_CHOICES.map((s) => (
              <option value={s} selected={q.state === s}>
                {s.replaceAll("_", " ")}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="recipient">Recipient</label>
          <input id="recipient" name="recipient" type="text" value={q.recipient ?? ""} />
        </div>
        <div>
          <label for="sender">Sender</label>
          <input id="sender" name="sender" type="text" value={q.sender ?? ""} />
        </div>
        <div>
          <label for="template">Template</label>
          <input id="template" name="template" type="text" value={q.template ?? ""} />
        </div>
        <div>
          <button type="submit" class="secondary">Filter</button>
        </div>
      </form>
      {props.messages.items.length === 0 ? (
        <EmptyState title="No messages match.">
          <p>Messages appear here as the workspace's agents send them.</p>
        </EmptyState>
      ) : (
        <TableRegion label="Messages">
          <table>
            <thead>
              <tr>
                <th scope="col">Accepted</th>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Template</th>
                <th scope="col">Priority</th>
                <th scope="col">State</th>
                <th scope="col" class="num">Deliveries</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {props.messages.items.map((m) => (
                <tr data-message={m.envelope.message_id}>
                  <td>
                    <a href={`/messages/${m.envelope.message_id}`}>
                      <LocalTime at={m.envelope.accepted_at} />
                    </a>
                  </td>
                  <td>{m.envelope.sender.friendly_name}</td>
                  <td>{m.envelope.recipient.friendly_name}</td>
                  <td>
                    <code>{m.envelope.template}</code>
                  </td>
                  <td>{m.envelope.priority}</td>
                  <td>
                    <StateBadge state={m.state} />
                  </td>
                  <td class="num">{m.envelope.delivery_count}</td>
                  <td>{m.state === "dead_lettered" ? <DeadLetterActions messageId={m.envelope.message_id} newKey={props.newKey} back="/messages?state=dead_lettered" /> : null}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <Pagination path="/messages" query={q} nextCursor={props.messages.next_cursor} />
    </>
  );
}

/** Release (back to pending, count reset) or purge a dead-lettered message. */
export function DeadLetterActions(props: { messageId: string; newKey: () => string; back: string }) {
  return (
    <div class="actions">
      <ActionForm action={`/dead-letters/${props.messageId}/release`} label="Release" idempotencyKey={props.newKey()} tone="secondary" hidden={{ back: props.back }} />
      <ActionForm action={`/dead-letters/${props.messageId}/purge`} label="Purge" idempotencyKey={props.newKey()} tone="danger" hidden={{ back: props.back }} />
    </div>
  );
}

/** One message: its envelope, state and timeline (its audit rows), and the dead-letter actions when it is one. */
export function MessagePage(props: { message: MessageWire; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
  const m = props.message;
  const e = m.envelope;
  return (
    <>
      <p>
        <a href="/messages">Messages</a>
      </p>
      <h1>
        Message <code>{e.message_id}</code>
      </h1>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <section class="panel">
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <StateBadge state={m.state} />
          </dd>
          <dt>From</dt>
          <dd>{e.sender.friendly_name}</dd>
          <dt>To</dt>
          <dd>{e.recipient.friendly_name}</dd>
          <dt>Template</dt>
          <dd>
            <code>{e.template}</code>
          </dd>
          <dt>Priority</dt>
          <dd>{e.priority}</dd>
          <dt>Correlation id</dt>
          <dd>{e.correlation_id ?? "—"}</dd>
          <dt>Accepted</dt>
          <dd>
            <LocalTime at={e.accepted_at} />
          </dd>
          <dt>Expires</dt>
          <dd>
            <LocalTime at={e.expires_at} />
          </dd>
          <dt>Deliveries</dt>
          <dd>{e.delivery_count}</dd>
        </dl>
      </section>
      {m.state === "dead_lettered" ? <DeadLetterActions messageId={e.message_id} newKey={props.newKey} back={`/messages/${e.message_id}`} /> : null}
      <h2>Timeline</h2>
      {m.timeline.length === 0 ? (
        <EmptyState title="No events recorded yet." />
      ) : (
        <ol class="timeline">
          {m.timeline.map((t) => (
            <li>
              <LocalTime at={t.at} /> <code>{t.activity}</code>
              {typeof t.details.code === "string" ? <span class="hint"> {t.details.code}</span> : null}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
