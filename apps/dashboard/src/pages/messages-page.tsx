/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { ConfirmLink } from "../components/confirm.tsx";
import { LiveRegion, LiveToggle } from "../components/live-region.tsx";
import { DataTable } from "../components/data-table.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { Facts } from "../components/facts.tsx";
import { FilterForm, SelectField, TextFilter, choicesOf } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { hrefWith, Pagination } from "../components/pagination.tsx";
import { actorName, entrySummary, relativeTo, stateStory } from "../message-story.ts";
import { StateBadge } from "../components/state-badge.tsx";
import type { MessageItemWire, MessageWire, Page, PayloadWire } from "../wire.ts";

/** Message states a filter offers. */
export const MESSAGE_STATE_CHOICES = ["pending", "held", "acknowledged", "expired", "dead_lettered"] as const;

/**
 * The messages of the workspace, found by id or correlation id and filtered by state,
 * recipient, sender and template; paged first, previous and next. The filters are a plain GET
 * form: each search is one entry of the browser's history, which Back undoes in one press.
 */
export function MessagesPage(props: { messages: Page<MessageItemWire>; query: Record<string, string | undefined>; newKey: () => string; administers: boolean; error?: ShownError | undefined; done?: string | undefined }) {
  const q = props.query;
  const bulk = { search: q.search, recipient: q.recipient, sender: q.sender, template: q.template };
  return (
    <>
      <PageHeading title="Messages" done={props.done} error={props.error} />
      <FilterForm action="/messages" button="Filter">
        <TextFilter name="search" label="Message id or correlation id" value={q.search} />
        <SelectField name="state" label="State" choices={choicesOf(MESSAGE_STATE_CHOICES, "")} selected={q.state} />
        <TextFilter name="recipient" label="Recipient" value={q.recipient} />
        <TextFilter name="sender" label="Sender" value={q.sender} />
        <TextFilter name="template" label="Template" value={q.template} />
      </FilterForm>
      {q.state === "dead_lettered" && props.administers && props.messages.items.length > 0 ? (
        <div class="actions bulk-actions">
          <ConfirmLink href={hrefWith("/dead-letters/release", bulk)} label="Release every dead letter this filter selects" tone="secondary" />
          <ConfirmLink href={hrefWith("/dead-letters/purge", bulk)} label="Purge every dead letter this filter selects" />
        </div>
      ) : null}
      <LiveToggle />
      <LiveRegion id="live-messages" href={hrefWith("/messages", q)}>
      <DataTable
        label="Messages"
        rows={props.messages.items}
        empty={{ title: "No messages match.", children: <p>Messages appear here as the workspace's agents send them.</p> }}
        rowAttrs={(m) => ({ "data-message": m.envelope.message_id })}
        columns={[
          {
            head: "Message",
            cell: (m) => (
              <a href={`/messages/${m.envelope.message_id}`}>
                <code>{m.envelope.message_id}</code>
              </a>
            ),
          },
          { head: "Accepted", cell: (m) => <LocalTime at={m.envelope.accepted_at} /> },
          {
            head: "Correlation",
            attrs: (m) => ({ "data-correlation": m.envelope.correlation_id ?? "" }),
            cell: (m) =>
              m.envelope.correlation_id === null ? (
                "—"
              ) : (
                <a href={hrefWith("/messages", { search: m.envelope.correlation_id })}>
                  <code>{m.envelope.correlation_id}</code>
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
      <Pagination path="/messages" query={q} nextCursor={props.messages.next_cursor} trail />
      </LiveRegion>
    </>
  );
}

/** Release (back to pending, count reset) or purge a dead-lettered message. */
export function DeadLetterActions(props: { messageId: string; newKey: () => string; back: string }) {
  return (
    <div class="actions">
      <ActionForm action={`/dead-letters/${props.messageId}/release`} label="Release" idempotencyKey={props.newKey()} tone="secondary" hidden={{ back: props.back }} />
      <ConfirmLink href={`/dead-letters/${props.messageId}/purge`} label="Purge" />
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

/** What the message page may offer the signed-in person. */
export interface MessagePageProps {
  message: MessageWire;
  /** The first page of the reply thread the message is in (DESIGN §2c). */
  thread: Page<MessageItemWire>;
  newKey: () => string;
  /** An owner or admin: may read the payload and act on dead letters. */
  administers: boolean;
  /** The instant the page is rendered at (the state line's "3 min ago"). */
  now: Date;
  error?: ShownError | undefined;
  done?: string | undefined;
}

/**
 * One message: a plain-language line on where it stands and why, its envelope, its lease, its
 * payload (owners and admins follow a link that reads it, an audit row each time; viewers see
 * its size), its reply thread, the actions its state allows, and every timeline entry with its
 * details.
 */
export function MessagePage(props: MessagePageProps) {
  const m = props.message;
  const e = m.envelope;
  const story = stateStory(m, props.now);
  return (
    <>
      <PageHeading title={
          <>
            Message <code>{e.message_id}</code>
          </>
        } back={{ href: "/messages", label: "Messages" }} done={props.done} error={props.error} />
      <p class="notice state-line" data-state-line={m.state} data-state-why={story.why}>
        <StateBadge state={m.state} /> {story.line}
      </p>
      <section class="panel">
        <Facts
          facts={[
            { term: "State", value: <StateBadge state={m.state} /> },
            { term: "From", value: <a href={`/accounts/${e.sender.ai_account_id}`}>{e.sender.friendly_name}</a> },
            { term: "To", value: <a href={`/accounts/${e.recipient.ai_account_id}`}>{e.recipient.friendly_name}</a> },
            { term: "Template", value: <code>{e.template}</code> },
            { term: "Priority", value: e.priority },
            { term: "Correlation id", value: e.correlation_id === null ? "—" : <a href={hrefWith("/messages", { search: e.correlation_id })}><code>{e.correlation_id}</code></a>, attrs: { "data-correlation": e.correlation_id ?? "" } },
            { term: "Accepted", value: <LocalTime at={e.accepted_at} /> },
            { term: "Expires", value: <LocalTime at={e.expires_at} /> },
            { term: "Deliveries", value: e.delivery_count },
            m.lease === null
              ? null
              : {
                  term: "Lease",
                  attrs: { "data-lease": m.lease.live ? "live" : "expired" },
                  value: (
                    <>
                      claimed <LocalTime at={m.lease.claimed_at} />, {m.lease.live ? "runs out" : "ran out"} <LocalTime at={m.lease.expires_at} /> ({relativeTo(m.lease.expires_at, props.now)}){m.lease.extensions > 0 ? `, extended ${m.lease.extensions} times` : ""}
                    </>
                  ),
                },
            {
              term: "Payload",
              attrs: { "data-payload-bytes": String(m.payload_bytes) },
              value: props.administers ? (
                <>
                  {m.payload_bytes} bytes · <a href={`/messages/${e.message_id}/payload`} rel="nofollow">Show the payload</a> <span class="hint">(each view is recorded in the audit log)</span>
                </>
              ) : (
                <>
                  {m.payload_bytes} bytes <span class="hint">(owners and admins can read it)</span>
                </>
              ),
            },
            { term: "In reply to", value: e.in_reply_to === null ? "—" : <a href={`/messages/${e.in_reply_to}`}><code>{e.in_reply_to}</code></a> },
          ]}
        />
      </section>
      {m.state === "dead_lettered" && props.administers ? <DeadLetterActions messageId={e.message_id} newKey={props.newKey} back={`/messages/${e.message_id}`} /> : null}
      <ThreadSection thread={props.thread} messageId={e.message_id} threadId={e.thread_id} />
      <h2>Timeline</h2>
      {m.timeline.length === 0 ? (
        <EmptyState title="No events recorded yet." />
      ) : (
        <ol class="timeline">
          {m.timeline.map((t) => (
            <TimelineItem message={m} entry={t} />
          ))}
        </ol>
      )}
    </>
  );
}

function TimelineItem(props: { message: MessageWire; entry: MessageWire["timeline"][number] }) {
  const t = props.entry;
  const actor = actorName(props.message, t.actor_ai_account_id);
  const summary = entrySummary(t);
  const rest = Object.entries(t.details).filter(([, v]) => v !== null && v !== undefined);
  return (
    <li data-activity={t.activity}>
      <LocalTime at={t.at} /> <code>{t.activity}</code>
      {actor === null ? null : <span> by {actor}</span>}
      {summary === null ? null : <p class="entry-summary">{summary}</p>}
      {rest.length === 0 ? null : (
        <details>
          <summary>Details</summary>
          <dl class="facts">
            {rest.map(([k, v]) => (
              <>
                <dt>{k}</dt>
                <dd>
                  <code>{typeof v === "string" ? v : JSON.stringify(v)}</code>
                </dd>
              </>
            ))}
          </dl>
        </details>
      )}
    </li>
  );
}

/** A message's payload, read by an owner or admin (the read is an audit row). */
export function PayloadPage(props: { payload: PayloadWire }) {
  const p = props.payload;
  return (
    <>
      <PageHeading title={
          <>
            Payload of <code>{p.message_id}</code>
          </>
        } back={{ href: `/messages/${p.message_id}`, label: "The message" }} />
      <p class="hint">Template <code>{p.template}</code>. This view was recorded in the audit log (<code>message.payload_viewed</code>).</p>
      <pre data-payload="">{JSON.stringify(p.payload, null, 2)}</pre>
    </>
  );
}
