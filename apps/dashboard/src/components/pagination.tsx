/** @jsxRuntime automatic @jsxImportSource hono/jsx */
/**
 * Cursor pagination under a list: "Next page" carries the list's `next_cursor` and keeps the
 * page's other query parameters (its filters); "First page" drops the cursor. The service's
 * cursors only go forward, so there is no "previous".
 */
export function Pagination(props: { path: string; query: Record<string, string | undefined>; nextCursor: string | null }) {
  const onLaterPage = props.query.cursor !== undefined && props.query.cursor !== "";
  if (props.nextCursor === null && !onLaterPage) return null;
  const first = hrefWith(props.path, { ...props.query, cursor: undefined });
  return (
    <nav class="pagination" aria-label="Pages">
      {onLaterPage ? <a href={first}>First page</a> : <span />}
      {props.nextCursor === null ? <span>Last page</span> : <a href={hrefWith(props.path, { ...props.query, cursor: props.nextCursor })} rel="next">Next page</a>}
    </nav>
  );
}

/** `path` with the given query parameters (empty and undefined ones left out). */
export function hrefWith(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== "") params.set(name, value);
  const text = params.toString();
  return text === "" ? path : `${path}?${text}`;
}
