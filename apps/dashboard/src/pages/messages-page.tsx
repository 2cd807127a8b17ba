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

/** One message: its envelope, state and timeline (its audit rows), and the dead-letter actions when it is one. */
export function MessagePage(props: { message: MessageWire; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
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
          ]}
        />
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
