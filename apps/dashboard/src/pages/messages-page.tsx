/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { DataTable } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { FilterForm, SelectField, TextFilter, choicesOf } from "../components/filter-form.tsx";
import { DoneNotice, ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
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
      <FilterForm action="/messages" button="Filter" live>
        <SelectField name="state" label="State" choices={choicesOf(MESSAGE_STATE_CHOICES, "")} selected={q.state} />
        <TextFilter name="recipient" label="Recipient" value={q.recipient} />
        <TextFilter name="sender" label="Sender" value={q.sender} />
        <TextFilter name="template" label="Template" value={q.template} />
      </FilterForm>
      <DataTable
        label="Messages"
        rows={props.messages.items}
        empty={{ title: "No messages match.", children: <p>Messages appear here as the workspace's agents send them.</p> }}
        rowAttrs={(m) => ({ "data-message": m.envelope.message_id })}
        columns={[
          {
            head: "Accepted",
            cell: (m) => (
              <a href={`/messages/${m.envelope.message_id}`}>
                <LocalTime at={m.envelope.accepted_at} />
              </a>
            ),
          },
          { head: "From", cell: (m) => m.envelope.sender.friendly_name },
          { head: "To", cell: (m) => m.envelope.recipient.friendly_name },
          { head: "Template", cell: (m) => <code>{m.envelope.template}</code> },
          { head: "Priority", cell: (m) => m.envelope.priority },
          { head: "State", cell: (m) => <StateBadge state={m.state} /> },
          { head: "Deliveries", num: true, cell: (m) => m.envelope.delivery_count },
          { head: "Actions", cell: (m) => (m.state === "dead_lettered" ? <DeadLetterActions messageId={m.envelope.message_id} newKey={props.newKey} back="/messages?state=dead_lettered" /> : null) },
        ]}
      />
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
