/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { DataTable } from "../components/data-table.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { Facts } from "../components/facts.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import type { NoticeWire, Page } from "../wire.ts";

const KIND_LABELS: Record<NoticeWire["kind"], string> = { dsa: "DSA notice", dmca: "DMCA notice" };
const words = (s: string) => s.replaceAll("_", " ");

/** The notices disclosed to the workspace, newest first: kind, category, state and dates. */
export function NoticesPage(props: { notices: Page<NoticeWire>; query: Record<string, string | undefined> }) {
  return (
    <>
      <h1>Notices</h1>
      <p>
        Notices about this workspace's content (EU Digital Services Act, US DMCA) once the operator acted on them. Each has the statement of reasons; an owner may contest a decision with a counter-notice.
      </p>
      <DataTable
        label="Notices"
        rows={props.notices.items}
        empty={{ title: "No notices.", children: <p>A notice shows here when the operator takes action on one about this workspace.</p> }}
        rowAttrs={(n) => ({ "data-notice": n.id })}
        columns={[
          { head: "Notice", cell: (n) => <a href={`/notices/${n.id}`}>{KIND_LABELS[n.kind]}</a> },
          { head: "Category", cell: (n) => words(n.category) },
          { head: "State", cell: (n) => <StateBadge state={n.state} /> },
          { head: "Received", cell: (n) => <LocalTime at={n.received_at} /> },
          { head: "Decided", cell: (n) => <LocalTime at={n.decision?.decided_at} /> },
          { head: "Counter-notice", cell: (n) => (n.counter_notice === null ? "—" : <LocalTime at={n.counter_notice.filed_at} />) },
        ]}
      />
      <Pagination path="/notices" query={props.query} nextCursor={props.notices.next_cursor} />
    </>
  );
}

/** What a counter-notice form is shown again with after a refusal. */
export interface CounterNoticeValues {
  explanation?: string | undefined;
  signature?: string | undefined;
  material?: string | undefined;
  mistake_statement?: boolean | undefined;
  name?: string | undefined;
  address?: string | undefined;
  phone?: string | undefined;
  jurisdiction_consent?: boolean | undefined;
}

/** Who is looking, as far as the counter-notice form cares. */
export interface CounterNoticeViewer {
  role: string;
  /** The session's step-up is fresh (the form can be sent as it is). */
  steppedUp: boolean;
}

/**
 * One notice as disclosed to the workspace: its facts, the complaint, the decision with the
 * statement of reasons (DSA Art. 17), the measures, the counter-notice and restoration window,
 * and the counter-notice form while the decision can be contested (owner only, after a step-up).
 */
export function NoticePage(props: { notice: NoticeWire; viewer: CounterNoticeViewer; values: CounterNoticeValues; error?: ShownError | undefined; done?: string | undefined }) {
  const n = props.notice;
  const sor = n.statement_of_reasons;
  return (
    <>
      <PageHeading title={KIND_LABELS[n.kind]} back={{ href: "/notices", label: "Notices" }} done={props.done} error={props.error} />
      <section class="panel">
        <Facts
          facts={[
            { term: "State", value: <StateBadge state={n.state} />, attrs: { "data-notice-state": n.state } },
            { term: "Category", value: words(n.category) },
            { term: "Id", value: <code>{n.id}</code> },
            { term: "Received", value: <LocalTime at={n.received_at} /> },
            { term: "Told to this workspace", value: <LocalTime at={n.disclosed_at} /> },
            { term: "Last change", value: <LocalTime at={n.updated_at} /> },
          ]}
        />
      </section>
      <section class="panel">
        <h2>The complaint</h2>
        {n.kind === "dmca" ? (
          <Facts
            facts={[
              { term: "Claimant", value: n.complaint.claimant ?? "—" },
              { term: "Copyrighted work", value: n.complaint.copyrighted_work ?? "—" },
              { term: "Material said to infringe", value: n.complaint.infringing_material ?? "—" },
            ]}
          />
        ) : (
          <p>{n.complaint.explanation ?? "—"}</p>
        )}
        <h3>Items it names in this workspace</h3>
        {n.items.length === 0 ? (
          <p>None.</p>
        ) : (
          <ul>
            {n.items.map((i) => (
              <li>
                {words(i.type ?? "item")} <code>{i.id}</code>
              </li>
            ))}
          </ul>
        )}
      </section>
      {sor === null ? null : (
        <section class="panel" data-statement-of-reasons="">
          <h2>Statement of reasons</h2>
          <Facts
            facts={[
              { term: "Decided", value: <LocalTime at={sor.decided_at} /> },
              {
                term: "Restriction",
                value: sor.restriction.map((r) => (
                  <div>
                    {words(r.type)} <code>{r.item_id}</code>
                  </div>
                )),
              },
              { term: "Facts and circumstances", value: sor.facts_and_circumstances, attrs: { "data-facts": "" } },
              { term: "Ground", value: `${words(sor.ground.type)}${sor.ground.category === undefined ? "" : ` (${words(sor.ground.category)})`}: ${sor.ground.legal_basis}` },
              { term: "Automated means", value: sor.automated_means ? "yes" : "no: a person decided" },
              { term: "Your options", value: sor.redress },
            ]}
          />
        </section>
      )}
      {n.measures.length === 0 ? null : (
        <section class="panel">
          <h2>Measures</h2>
          <DataTable
            label="Measures"
            rows={n.measures}
            columns={[
              { head: "Measure", cell: (m) => words(m.type) },
              { head: "Item", cell: (m) => <code>{m.item_id}</code> },
              { head: "Applied", cell: (m) => <LocalTime at={m.applied_at} /> },
              { head: "Lifted", cell: (m) => <LocalTime at={m.lifted_at} /> },
            ]}
          />
        </section>
      )}
      {n.counter_notice === null ? null : (
        <section class="panel" data-counter-notice="">
          <h2>{n.kind === "dmca" ? "Counter-notice" : "Complaint about the decision"}</h2>
          <p>
            Filed <LocalTime at={n.counter_notice.filed_at} />.
          </p>
          {n.restoration === null ? null : (
            <p data-restoration="">
              Unless the claimant tells the operator of a court action, the measure is lifted between <LocalTime at={n.restoration.earliest_at} /> and <LocalTime at={n.restoration.latest_at} />.
            </p>
          )}
          {n.court_action === null ? null : (
            <p>
              A court action was recorded <LocalTime at={n.court_action.recorded_at} />: the measure stays until it ends.
            </p>
          )}
        </section>
      )}
      {n.state === "action_taken" ? <CounterNoticeSection notice={n} viewer={props.viewer} values={props.values} /> : null}
    </>
  );
}

/** The counter-notice: the form for an owner with a fresh step-up, else what stands in the way. */
function CounterNoticeSection(props: { notice: NoticeWire; viewer: CounterNoticeViewer; values: CounterNoticeValues }) {
  const n = props.notice;
  const title = n.kind === "dmca" ? "File a counter-notice" : "Complain about the decision";
  if (props.viewer.role !== "owner") {
    return (
      <section class="panel">
        <h2>{title}</h2>
        <p>Only an owner of the workspace may contest the decision.</p>
      </section>
    );
  }
  if (!props.viewer.steppedUp) {
    return (
      <section class="panel">
        <h2>{title}</h2>
        <p>Contesting a decision needs a fresh confirmation with a code from your authenticator app.</p>
        <p>
          <a class="button" href={`/settings/step-up?${new URLSearchParams({ return_to: `/notices/${n.id}` }).toString()}`}>
            Confirm it is you
          </a>
        </p>
      </section>
    );
  }
  const v = props.values;
  return (
    <form class="panel stack" method="post" action={`/notices/${n.id}/counter-notice`}>
      <h2>{title}</h2>
      {n.kind === "dsa" ? (
        <div>
          <label for="cn-explanation">Why the decision is wrong</label>
          <textarea id="cn-explanation" name="explanation" required>
            {v.explanation ?? ""}
          </textarea>
        </div>
      ) : (
        <>
          <p class="hint">The elements of 17 U.S.C. 512(g)(3). A copy goes to the claimant.</p>
          <div>
            <label for="cn-material">The material removed and where it appeared</label>
            <textarea id="cn-material" name="material" required>
              {v.material ?? ""}
            </textarea>
          </div>
          <div class="checks">
            <label>
              <input type="checkbox" name="mistake_statement" value="true" checked={v.mistake_statement === true} required />
              Under penalty of perjury, I believe in good faith that the material was removed by mistake or misidentification.
            </label>
          </div>
          <div>
            <label for="cn-name">Your name</label>
            <input id="cn-name" name="name" type="text" value={v.name ?? ""} autocomplete="name" required />
          </div>
          <div>
            <label for="cn-address">Your address</label>
            <input id="cn-address" name="address" type="text" value={v.address ?? ""} autocomplete="street-address" required />
          </div>
          <div>
            <label for="cn-phone">Your telephone number</label>
            <input id="cn-phone" name="phone" type="text" value={v.phone ?? ""} autocomplete="tel" required />
          </div>
          <div class="checks">
            <label>
              <input type="checkbox" name="jurisdiction_consent" value="true" checked={v.jurisdiction_consent === true} required />
              I consent to the jurisdiction of the Federal District Court for my address (or any judicial district where the service may be found) and will accept service of process from the claimant.
            </label>
          </div>
          <div>
            <label for="cn-signature">Signature (your full name)</label>
            <input id="cn-signature" name="signature" type="text" value={v.signature ?? ""} required />
          </div>
        </>
      )}
      <div>
        <button type="submit">{n.kind === "dmca" ? "File the counter-notice" : "Send the complaint"}</button>
      </div>
    </form>
  );
}
