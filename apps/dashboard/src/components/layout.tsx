/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { StaticAsset, StaticAssets } from "../static-assets.ts";

/** The person looking at a page, as the header shows them (null: signed out). */
export interface Viewer {
  email: string;
  displayName: string | null;
  role: string;
  workspaceName: string;
  /** Messages waiting for a person's approval (DESIGN §2c), counted up to `WAITING_COUNT_LIMIT`; the navigation's badge. */
  waitingApprovals?: number;
}

/** The approvals badge counts up to this many (then shows "99+"). */
export const WAITING_COUNT_LIMIT = 100;

/** The sections of the navigation. */
export const NAV = [
  { key: "overview", href: "/", label: "Overview" },
  { key: "messages", href: "/messages", label: "Messages" },
  { key: "approvals", href: "/approvals", label: "Approvals" },
  { key: "accounts", href: "/accounts", label: "AI accounts" },
  { key: "credentials", href: "/credentials", label: "Credentials" },
  { key: "connections", href: "/connections", label: "Connections" },
  { key: "webhooks", href: "/webhooks", label: "Webhooks" },
  { key: "policies", href: "/policies", label: "Policies" },
  { key: "audit", href: "/audit", label: "Audit log" },
  { key: "projects", href: "/projects", label: "Projects" },
  { key: "lessons", href: "/lessons", label: "Lessons" },
  { key: "rules", href: "/rules", label: "Rules" },
  { key: "notices", href: "/notices", label: "Notices" },
  { key: "people", href: "/people", label: "People" },
  { key: "settings", href: "/settings", label: "Settings" },
] as const;

/** One section of the navigation. */
export type NavKey = (typeof NAV)[number]["key"];

/** What every page passes to the layout. */
export interface LayoutProps {
  title: string;
  assets: StaticAssets;
  viewer: Viewer | null;
  current?: NavKey | undefined;
  /** False for a page whose forms leave this origin (the OAuth consent): no htmx boosting, no navigation. Default true. */
  boosted?: boolean | undefined;
  /** Scripts of this page only (files of this origin, deferred), after the ones every page loads. */
  scripts?: readonly StaticAsset[] | undefined;
  children?: Child;
}

/** The navigation's count of messages waiting for approval (nothing when none wait). */
function WaitingBadge(props: { count: number }) {
  if (props.count <= 0) return null;
  const shown = props.count >= WAITING_COUNT_LIMIT ? `${WAITING_COUNT_LIMIT - 1}+` : String(props.count);
  return (
    <>
      {" "}
      <span class="badge warn" data-count="approvals-waiting">
        {shown}
        <span class="visually-hidden"> waiting</span>
      </span>
    </>
  );
}

/**
 * The one layout of every page: the document head (the stylesheet and scripts as files of this
 * origin, htmx configured to add no stylesheet of its own), a skip link, the header with the
 * workspace and a sign-out button, the navigation when signed in, and the page.
 */
export function Layout(props: LayoutProps) {
  const signedIn = props.viewer !== null;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content='{"includeIndicatorCSS": false}' />
        <title>{`${props.title} · agentq`}</title>
        <link rel="icon" href={props.assets.favicon.path} type="image/svg+xml" />
        <link rel="stylesheet" href={props.assets.css.path} />
        <script src={props.assets.htmx.path} defer></script>
        <script src={props.assets.localTime.path} defer></script>
        <script src={props.assets.copyButton.path} defer></script>
        <script src={props.assets.liveRefresh.path} defer></script>
        {(props.scripts ?? []).map((script) => (
          <script src={script.path} defer></script>
        ))}
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to the page
        </a>
        <header class="site-header">
          <a class="brand" href="/">
            agentq
          </a>
          {props.viewer === null ? null : (
            <div class="who">
              <span>
                {props.viewer.workspaceName} · {props.viewer.displayName ?? props.viewer.email} ({props.viewer.role})
              </span>
              <form method="post" action="/sign-out">
                <button type="submit">Sign out</button>
              </form>
            </div>
          )}
        </header>
        {signedIn && props.boosted !== false ? (
          // htmx boosts the links and forms of the navigation and the page: each answer's #frame
          // replaces this one (the navigation's current section included); without JavaScript they
          // are plain navigations and form posts.
          <div class="frame" id="frame" hx-boost:inherited="true" hx-target:inherited="#frame" hx-select:inherited="#frame" hx-swap:inherited="outerHTML">
            <nav class="site-nav" aria-label="Sections">
              <ul>
                {NAV.map((item) => (
                  <li>
                    <a href={item.href} aria-current={item.key === props.current ? "page" : undefined}>
                      {item.label}
                      {item.key === "approvals" ? <WaitingBadge count={props.viewer?.waitingApprovals ?? 0} /> : null}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
            <main id="main">{props.children}</main>
          </div>
        ) : (
          <main id="main">{props.children}</main>
        )}
      </body>
    </html>
  );
}
