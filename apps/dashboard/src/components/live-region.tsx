/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";

/** How often a live region asks for its page again. */
export const LIVE_INTERVAL = "5s";

/**
 * A part of a page that refreshes itself: htmx asks for `href` (the page itself) every few
 * seconds and swaps in the element of the same id from the answer, nothing else, so the scroll
 * position and what is typed elsewhere stay. live-refresh.js pauses it while the tab is hidden
 * or the page's LiveToggle is pressed. Without JavaScript it is a plain part of the page.
 */
export function LiveRegion(props: { id: string; href: string; children?: Child }) {
  const sel = `#${props.id}`;
  return (
    <div id={props.id} data-live="" hx-get={props.href} hx-trigger={`every ${LIVE_INTERVAL}`} hx-select={sel} hx-target={sel} hx-swap="outerHTML" hx-push-url="false" aria-live="off">
      {props.children}
    </div>
  );
}

/** The button that pauses and resumes a page's live regions (shown only when scripts run). */
export function LiveToggle() {
  return (
    <p class="live-control js-only">
      <span class="hint">Updates every few seconds while this tab is visible. </span>
      <button type="button" class="secondary" data-live-toggle="" aria-pressed="false">
        Pause live updates
      </button>
    </p>
  );
}
