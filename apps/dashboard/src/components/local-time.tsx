/** @jsxRuntime automatic @jsxImportSource hono/jsx */
/**
 * An instant as a <time> element: the server writes it in UTC ("2026-11-24 09:30:00 UTC", right
 * without JavaScript) and the page's local-time script rewrites the text in the viewer's own time
 * zone. Null renders a dash, or `none` when given (e.g. "never").
 */
export function LocalTime(props: { at: string | null | undefined; none?: string }) {
  if (props.at === null || props.at === undefined) return <span>{props.none ?? "—"}</span>;
  const at = new Date(props.at);
  if (Number.isNaN(at.getTime())) return <span>{props.at}</span>;
  const utc = `${at.toISOString().slice(0, 19).replace("T", " ")} UTC`;
  return (
    <time datetime={at.toISOString()} data-local="">
      {utc}
    </time>
  );
}
