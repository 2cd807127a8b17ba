/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { DataTable } from "../components/data-table.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { Facts } from "../components/facts.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import type { ApprovalWire, Page } from "../wire.ts";

/** What waits for a person's approval (DESIGN §2c), oldest first: each row leads to the message to decide on. */
export function ApprovalsPage(props: { approvals: Page<ApprovalWire>; error?: ShownError | undefined; done?: string | undefined }) {
  return (
    <>
      <PageHeading title="Approvals" done={props.done} error={props.error} />
      <p class="hint">Messages an approval policy holds wait here until a person approves them (then their recipient claims them) or rejects them (never delivered). They expire as any message does.</p>
      <DataTable
        label="Messages waiting for approval"
        rows={props.approvals.items}
        empty={{ title: "Nothing waits for approval.", children: <p>Sends that an approval policy (Policies, kind approval) holds appear here.</p> }}
        rowAttrs={(a) => ({ "data-approval": a.envelope.message_id })}
        columns={[
          {
            head: "Sent",
            cell: (a) => (
              <a href={`/approvals/${a.envelope.message_id}`}>
                <LocalTime at={a.envelope.accepted_at} />
              </a>
            ),
          },
          { head: "From", cell: (a) => a.envelope.sender.friendly_name },
          { head: "To", cell: (a) => a.envelope.recipient.friendly_name },
          { head: "Template", cell: (a) => <code>{a.envelope.template}</code> },
          { head: "Priority", cell: (a) => a.envelope.priority },
          { head: "Held by", cell: (a) => a.approval.policy_name ?? a.approval.policy_id },
          { head: "Expires", cell: (a) => <LocalTime at={a.envelope.expires_at} /> },
        ]}
      />
      <Pagination path="/approvals" query={{}} nextCursor={props.approvals.next_cursor} />
    </>
  );
}

/** One held message to decide on: its envelope, its payload, what held it, and approve or reject while it waits. */
export function ApprovalPage(props: { approval: ApprovalWire; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
  const a = props.approval;
  const e = a.envelope;
  const waiting = a.state === "held_for_approval";
  return (
    <>
      <PageHeading title={
          <>
            Approve message <code>{e.message_id}</code>?
          </>
        } back={{ href: "/approvals", label: "Approvals" }} done={props.done} error={props.error} />
      <section class="panel">
        <Facts
          facts={[
            { term: "State", value: <StateBadge state={a.state} /> },
            { term: "From", value: e.sender.friendly_name },
            { term: "To", value: e.recipient.friendly_name },
            { term: "Template", value: <code>{e.template}</code> },
            { term: "Priority", value: e.priority },
            { term: "Held by", value: a.approval.policy_name ?? a.approval.policy_id },
            { term: "Sent", value: <LocalTime at={e.accepted_at} /> },
            { term: "Expires", value: <LocalTime at={e.expires_at} /> },
            { term: "Who may decide", value: a.approval.approvers },
          ]}
        />
      </section>
      <h2>Payload</h2>
      <pre class="payload" data-payload="">{JSON.stringify(a.payload, null, 2)}</pre>
      {waiting ? (
        <section class="panel stack" aria-label="Decide">
          {a.approval.require_step_up ? <p class="hint">This policy asks for a fresh two-step verification before a decision.</p> : null}
          <ActionForm action={`/approvals/${e.message_id}/approve`} label="Approve" idempotencyKey={props.newKey()} />
          <form method="post" action={`/approvals/${e.message_id}/reject`} class="stack">
            <input type="hidden" name="idempotency_key" value={props.newKey()} />
            <label for="reject-reason">Reason for rejecting (optional)</label>
            <textarea id="reject-reason" name="reason" maxlength={1000} rows={2}></textarea>
            <button type="submit" class="danger">
              Reject
            </button>
          </form>
        </section>
      ) : (
        <p>
          Decided: <a href={`/messages/${e.message_id}`}>the message and its timeline</a>.
        </p>
      )}
    </>
  );
}
