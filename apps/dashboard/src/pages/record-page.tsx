/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { Facts } from "../components/facts.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { PageHeading } from "../components/page-heading.tsx";

/** Fields a record page leaves out of its facts (shown in the heading, or ids of no use to a reader). */
const SKIPPED = new Set(["title", "project_id", "workspace_id"]);

const words = (name: string) => {
  const w = name.replace(/_md$/, "").replaceAll("_", " ");
  return w.charAt(0).toUpperCase() + w.slice(1);
};
const isLongText = (name: string, value: unknown) => typeof value === "string" && (name.endsWith("_md") || value.length > 120 || value.includes("\n"));

/**
 * One session-state record (a decision, a backlog item, a build session) in full, read-only: its
 * short fields as facts (times in the viewer's zone), then every text field whole (the body,
 * rationale, closing notes...) as written, then its lists (events, amendments) as data.
 */
export function RecordPage(props: { kind: string; record: Record<string, unknown>; back: { href: string; label: string } }) {
  const r = props.record;
  const entries = Object.entries(r).filter(([k]) => !SKIPPED.has(k));
  const facts = entries.filter(([k, v]) => !isLongText(k, v) && (v === null || typeof v !== "object"));
  const texts = entries.filter(([k, v]) => isLongText(k, v));
  const nested = entries.filter(([, v]) => v !== null && typeof v === "object");
  const by = (r.created_by as { friendly_name?: unknown } | undefined)?.friendly_name;
  const number = typeof r.number === "number" ? `#${r.number} ` : "";
  return (
    <>
      <PageHeading title={`${props.kind} ${number}${typeof r.title === "string" ? r.title : ""}`} back={props.back} />
      <section class="panel">
        <Facts
          facts={[
            ...(typeof by === "string" ? [{ term: "By", value: by }] : []),
            ...facts.map(([k, v]) => ({ term: words(k), value: typeof v === "string" && /^\d{4}-\d\d-\d\dT/.test(v) ? <LocalTime at={v} /> : v === null ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v as string | number | boolean), attrs: { "data-field": k } })),
          ]}
        />
      </section>
      {texts.map(([k, v]) => (
        <section>
          <h2>{words(k)}</h2>
          <div class="record-text" data-field={k}>
            {v as string}
          </div>
        </section>
      ))}
      {nested
        .filter(([k]) => k !== "created_by")
        .map(([k, v]) => (
          <details class="panel">
            <summary>
              {words(k)} {Array.isArray(v) ? `(${v.length})` : ""}
            </summary>
            <pre>{JSON.stringify(v, null, 2)}</pre>
          </details>
        ))}
    </>
  );
}
