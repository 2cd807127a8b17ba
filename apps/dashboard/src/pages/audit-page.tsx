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

/** The audit log: filters, the rows (newest first), and the chain's verification when asked for. */
export function AuditPage(props: { rows: Page<AuditRowWire>; query: Record<string, string | undefined>; verification: VerificationWire | null; error?: ShownError | undefined }) {
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
        <TextFilter name="activity" label="Activity" placeholder="e.g. ai_account.frozen" value={props.query.activity} />
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
          { head: "Actor", cell: actorOf },
          {
            head: "Subject",
            cell: (r) => (
              <>
                {r.subject_type} <code>{r.subject_id}</code>
              </>
            ),
          },
          { head: "Seq", num: true, cell: (r) => r.seq ?? "unsealed" },
        ]}
      />
      <Pagination path="/audit" query={props.query} nextCursor={props.rows.next_cursor} />
    </>
  );
}

function actorOf(r: AuditRowWire): string {
  if (typeof r.details.actor_person_id === "string") return `person ${r.details.actor_person_id}`;
  if (r.actor_ai_account_id !== null) return `AI account ${r.actor_ai_account_id}`;
  return "the service";
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
