/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";

/** One fact of a record: its term, its value, and the value's data attributes when a test finds it by one. */
export interface Fact {
  term: string;
  value: Child;
  attrs?: Record<string, string> | undefined;
}

/**
 * A record's facts as the dashboard shows them: a definition list (`dl.facts`), a term and its
 * value per fact. A null fact (one this record does not have) is left out.
 */
export function Facts(props: { facts: readonly (Fact | null)[] }) {
  return (
    <dl class="facts">
      {props.facts.map((f) =>
        f === null ? null : (
          <>
            <dt>{f.term}</dt>
            <dd {...(f.attrs ?? {})}>{f.value}</dd>
          </>
        ),
      )}
    </dl>
  );
}
