/** @jsxRuntime automatic @jsxImportSource hono/jsx */
/** The most earlier pages a list's address remembers for "Previous page" (each a cursor). */
export const MAX_TRAIL = 10;

/**
 * Cursor pagination under a list: "Next page" carries the list's `next_cursor` and keeps the
 * page's other query parameters (its filters); "First page" drops the cursor. The service's
 * cursors only go forward: with `trail`, the address also carries the cursors of the pages
 * before (`back`, comma-separated, the last MAX_TRAIL, "-" for the first page), so "Previous
 * page" goes one page back.
 */
export function Pagination(props: { path: string; query: Record<string, string | undefined>; nextCursor: string | null; trail?: boolean | undefined }) {
  const current = props.query.cursor ?? "";
  const onLaterPage = current !== "";
  if (props.nextCursor === null && !onLaterPage) return null;
  const back = props.trail === true ? trailOf(props.query.back) : null;
  const first = hrefWith(props.path, { ...props.query, cursor: undefined, back: undefined });
  const before = back?.at(-1);
  const previous = back === null || before === undefined || !onLaterPage ? null : hrefWith(props.path, { ...props.query, cursor: before === FIRST ? undefined : before, back: back.slice(0, -1).join(",") });
  const next = props.nextCursor === null ? null : hrefWith(props.path, { ...props.query, cursor: props.nextCursor, back: back === null ? undefined : [...back, current === "" ? FIRST : current].slice(-MAX_TRAIL).join(",") });
  return (
    <nav class="pagination" aria-label="Pages">
      {onLaterPage ? <a href={first}>First page</a> : <span />}
      {previous === null ? null : (
        <a href={previous} rel="prev">
          Previous page
        </a>
      )}
      {next === null ? <span>Last page</span> : <a href={next} rel="next">Next page</a>}
    </nav>
  );
}

/** The first page in a trail. */
const FIRST = "-";

/** The cursors of the earlier pages from a `back` parameter ("-" for the first page), the last MAX_TRAIL. */
export function trailOf(back: string | undefined): string[] {
  if (back === undefined || back === "") return [];
  return back.split(",").filter((c) => c !== "").slice(-MAX_TRAIL);
}

/** `path` with the given query parameters (empty and undefined ones left out). */
export function hrefWith(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, value);
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}
