/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { DataTable } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { Facts } from "../components/facts.tsx";
import { FilterForm, SelectField, TextFilter, choicesOf } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
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
      <PageHeading title="Messages" done={props.done} error={props.error} />
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

/** The reply thread a message is in, oldest first, the message itself marked; nothing when it is alone in it. */
export function ThreadSection(props: { thread: Page<MessageItemWire>; messageId: string; threadId: string }) {
  if (props.thread.items.length < 2 && props.thread.next_cursor === null) return null;
  return (
    <section aria-label="Thread">
      <h2>Thread</h2>
      <ol class="thread" data-thread={props.threadId}>
        {props.thread.items.map((t) => {
          const e = t.envelope;
          const here = e.message_id === props.messageId;
          const line = (
            <>
              <LocalTime at={e.accepted_at} /> {e.sender.friendly_name} → {e.recipient.friendly_name} <code>{e.template}</code> <StateBadge state={t.state} />
            </>
          );
          return <li data-message={e.message_id}>{here ? <strong aria-current="true">{line}</strong> : <a href={`/messages/${e.message_id}`}>{line}</a>}</li>;
        })}
      </ol>
      {props.thread.next_cursor === null ? null : <p class="hint">Later messages of the thread are not shown.</p>}
    </section>
  );
}

/** One message: its envelope, state, reply thread and timeline (its audit rows), and the dead-letter actions when it is one. */
export function MessagePage(props: { message: MessageWire; thread: Page<MessageItemWire>; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
  const m = props.message;
  const e = m.envelope;
  return (
    <>
      <PageHeading title={
          <>
            Message <code>{e.message_id}</code>
          </>
        } back={{ href: "/messages", label: "Messages" }} done={props.done} error={props.error} />
      <section class="panel">
        <Facts
          facts={[
            { term: "State", value: <StateBadge state={m.state} /> },
            { term: "From", value: e.sender.friendly_name },
            { term: "To", value: e.recipient.friendly_name },
            { term: "Template", value: <code>{e.template}</code> },
            { term: "Priority", value: e.priority },
            { term: "Correlation id", value: e.correlation_id ?? "—" },
            { term: "Accepted", value: <LocalTime at={e.accepted_at} /> },
            { term: "Expires", value: <LocalTime at={e.expires_at} /> },
            { term: "Deliveries", value: e.delivery_count },
            { term: "In reply to", value: e.in_reply_to === null ? "—" : <a href={`/messages/${e.in_reply_to}`}><code>{e.in_reply_to}</code></a> },
          ]}
        />
      </section>
      {m.state === "dead_lettered" ? <DeadLetterActions messageId={e.message_id} newKey={props.newKey} back={`/messages/${e.message_id}`} /> : null}
      <ThreadSection thread={props.thread} messageId={e.message_id} threadId={e.thread_id} />
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
