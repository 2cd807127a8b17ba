/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { TableRegion } from "../components/table-region.tsx";
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
      <h1>Audit log</h1>
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <section class="panel">
        <h2>Tamper evidence</h2>
        <p>Every row is sealed into a hash chain. Verification recomputes the chain of this workspace from its first row.</p>
        {props.verification === null ? null : <VerificationResult result={props.verification} />}
        <form method="get" action="/audit">
          <input type="hidden" name="verify" value="1" />
          <button type="submit">Verify the chain</button>
        </form>
      </section>
      <form class="filters" method="get" action="/audit">
        <div>
          <label for="activity">Activity</label>
          <input id="activity" name="activity" type="text" placeholder="e.g. ai_account.frozen" value={props.query.activity ?? ""} />
        </div>
        <div>
          <label for="message_id">Message id</label>
          <input id="message_id" name="message_id" type="text" value={props.query.message_id ?? ""} />
        </div>
        <div>
          <button type="submit" class="secondary">Filter</button>
        </div>
      </form>
      {props.rows.items.length === 0 ? (
        <EmptyState title="No audit rows match." />
      ) : (
        <TableRegion label="Audit rows">
          <table>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Activity</th>
                <th scope="col">Actor</th>
                <th scope="col">Subject</th>
                <th scope="col" class="num">Seq</th>
              </tr>
            </thead>
            <tbody>
              {props.rows.items.map((r) => (
                <tr data-activity={r.activity}>
                  <td>
                    <LocalTime at={r.occurred_at} />
                  </td>
                  <td>
                    <code>{r.activity}</code>
                    {typeof r.details.code === "string" ? <span class="hint"> {r.details.code}</span> : null}
                  </td>
                  <td>{actorOf(r)}</td>
                  <td>
                    {r.subject_type} <code>{r.subject_id}</code>
                  </td>
                  <td class="num">{r.seq ?? "unsealed"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
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
