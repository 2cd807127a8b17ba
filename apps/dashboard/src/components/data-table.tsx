/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { EmptyState } from "./empty-state.tsx";
import { TableRegion } from "./table-region.tsx";

/**
 * One column of a table: its heading, what each row shows in it, whether it holds numbers
 * (right-aligned), and the data attributes of its cells when a test finds them by one.
 */
export interface Column<T> {
  head: string;
  cell: (row: T) => Child;
  num?: boolean | undefined;
  attrs?: ((row: T) => Record<string, string>) | undefined;
}

/** What a table shows instead of itself when it has no rows: the title, and what to do about it. */
export interface EmptyText {
  title: string;
  children?: Child;
}

/**
 * The one table of the dashboard: a labelled, scrollable region with a header row of column
 * headings and a row per item, or the empty state when there are no items and `empty` is given
 * (without it, an empty table). `rowAttrs` gives each row its data attributes (what the browser
 * tests find rows by). A column left out for this viewer is simply not in `columns`.
 */
export function DataTable<T>(props: { label: string; rows: readonly T[]; columns: readonly Column<T>[]; empty?: EmptyText | undefined; rowAttrs?: ((row: T) => Record<string, string>) | undefined }) {
  if (props.rows.length === 0 && props.empty !== undefined) return <EmptyState title={props.empty.title}>{props.empty.children}</EmptyState>;
  const numClass = (c: Column<T>) => (c.num === true ? "num" : undefined);
  return (
    <TableRegion label={props.label}>
      <table>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th scope="col" class={numClass(c)}>
                {c.head}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr {...(props.rowAttrs?.(row) ?? {})}>
              {props.columns.map((c) => (
                <td class={numClass(c)} {...(c.attrs?.(row) ?? {})}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}
