/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";

/** What a list shows when it has nothing: what is missing, and what to do about it. */
export function EmptyState(props: { title: string; children?: Child }) {
  return (
    <div class="empty" data-empty="">
      <strong>{props.title}</strong>
      {props.children}
    </div>
  );
}
