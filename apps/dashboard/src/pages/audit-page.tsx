/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { DataTable } from "../components/data-table.tsx";
import { FilterForm, TextFilter } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import type { AuditRowWire, Page } from "../wire.ts";

/** The verification result as GET /v1/audit-log/verification returns it. */
export interface VerificationWire {
  verified: boolean;
  head: { seq: number; hash: string; sealed_at: string | null } | null;
  checked: number;
  first_bad_row: { id: string; seq: number | null; reason: string } | null;
}

/** Names of the workspace's records by id, for the audit log's actors and subjects. */
export interface AuditNames {
  accounts: ReadonlyMap<string, string>;
  credentials: ReadonlyMap<string, string>;
  people: ReadonlyMap<string, string>;
  webhooks: ReadonlyMap<string, string>;
}

/** Where a subject of each type has a page of its own. */
const SUBJECT_PAGES: Readonly<Record<string, (id: string) => string>> = {
  ai_account: (id) => `/accounts/${id}`,
  message: (id) => `/messages/${id}`,
  webhook: (id) => `/webhooks/${id}`,
  project: (id) => `/projects/${id}`,
  lesson: (id) => `/lessons/${id}`,
  lesson_candidate: (id) => `/lesson-candidates/${id}`,
  rule: (id) => `/rules/${id}`,
  notice: (id) => `/notices/${id}`,
};

/** The audit log: filters, the rows (newest first) naming who and what, and the chain's verification when asked for. */
export function AuditPage(props: { rows: Page<AuditRowWire>; names: AuditNames; query: Record<string, string | undefined>; verification: VerificationWire | null; error?: ShownError | undefined }) {
  return (
    <>
      <PageHeading title="Audit log" error={props.error} />
      <section class="panel">
        <h2>Tamper evidence</h2>
        <p>Every row is sealed into a hash chain. Verification recomputes the chain of this workspace from its first row.</p>
        {props.verification === null ? null : <VerificationResult result={props.verification} />}
        <form method="get" action="/audit">
          <input type="hidden" name="verify" value="1" />
          <button type="submit">Verify the chain</button>
        </form>
      </section>
      <FilterForm action="/audit" button="Filter">
        <TextFilter name="activity_contains" label="Activity contains" placeholder="e.g. revoked, credential, message.sent" value={props.query.activity_contains} />
        <TextFilter name="message_id" label="Message id" value={props.query.message_id} />
      </FilterForm>
      <DataTable
        label="Audit rows"
        rows={props.rows.items}
        empty={{ title: "No audit rows match." }}
        rowAttrs={(r) => ({ "data-activity": r.activity })}
        columns={[
          { head: "When", cell: (r) => <LocalTime at={r.occurred_at} /> },
          {
            head: "Activity",
            cell: (r) => (
              <>
                <code>{r.activity}</code>
                {typeof r.details.code === "string" ? <span class="hint"> {r.details.code}</span> : null}
              </>
            ),
          },
          { head: "Actor", cell: (r) => <Actor row={r} names={props.names} /> },
          { head: "Subject", cell: (r) => <Subject row={r} names={props.names} /> },
          { head: "Seq", num: true, cell: (r) => r.seq ?? "unsealed" },
        ]}
      />
      <Pagination path="/audit" query={props.query} nextCursor={props.rows.next_cursor} />
    </>
  );
}

/** Who acted: the person (their email), the AI account (its name, linked) or the service. */
function Actor(props: { row: AuditRowWire; names: AuditNames }) {
  const r = props.row;
  if (typeof r.details.actor_person_id === "string") {
    const email = props.names.people.get(r.details.actor_person_id);
    return email === undefined ? <span title={r.details.actor_person_id}>a person</span> : <span data-actor-person="">{email}</span>;
  }
  if (r.actor_ai_account_id !== null) {
    const name = props.names.accounts.get(r.actor_ai_account_id);
    return <a href={`/accounts/${r.actor_ai_account_id}`}>{name ?? <code>{r.actor_ai_account_id}</code>}</a>;
  }
  return <span>the service</span>;
}

/** What it concerns: its kind, and its name (linked to its page where it has one), else its id. */
function Subject(props: { row: AuditRowWire; names: AuditNames }) {
  const r = props.row;
  const id = r.subject_id;
  const kind = r.subject_type.replaceAll("_", " ");
  const name = r.subject_type === "ai_account" ? props.names.accounts.get(id) : r.subject_type === "credential" ? props.names.credentials.get(id) : r.subject_type === "person" ? props.names.people.get(id) : r.subject_type === "webhook" ? props.names.webhooks.get(id) : undefined;
  const shown = name ?? <code>{id}</code>;
  const page = SUBJECT_PAGES[r.subject_type];
  return (
    <>
      {kind} {page === undefined ? shown : <a href={page(id)}>{shown}</a>}
    </>
  );
}

/** Verified or not, how many rows, the chain head to write down, and the first bad row. */
export function VerificationResult(props: { result: VerificationWire }) {
  const r = props.result;
  return (
    <div class={`notice ${r.verified ? "ok" : "error"}`} role="status" data-verified={String(r.verified)}>
      <strong>{r.verified ? `Verified: ${r.checked} sealed rows check out.` : `Not verified: ${r.checked} rows check out before the first bad one.`}</strong>
      {r.head === null ? (
        <p>Nothing is sealed yet (rows are sealed within seconds).</p>
      ) : (
        <p>
          Chain head: row {r.head.seq}, hash <code data-chain-head="">{r.head.hash}</code>
          {r.head.sealed_at === null ? null : (
            <>
              , sealed <LocalTime at={r.head.sealed_at} />
            </>
          )}
          . Write the head down: a later verification that does not reach it means rows were removed from the end.
        </p>
      )}
      {r.first_bad_row === null ? null : (
        <p>
          First bad row: <code>{r.first_bad_row.id}</code> (seq {r.first_bad_row.seq ?? "none"}): {r.first_bad_row.reason}.
        </p>
      )}
    </div>
  );
}
