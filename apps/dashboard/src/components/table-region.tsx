/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";

/**
 * A table inside a labelled region that scrolls sideways on a narrow screen (focusable, so a
 * keyboard can scroll it too).
 */
export function TableRegion(props: { label: string; children?: Child }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabindex={0}>
      {props.children}
    </div>
  );
}
