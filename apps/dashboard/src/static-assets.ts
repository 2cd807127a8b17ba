import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** One file the dashboard serves under /assets/, named by its content hash so it can be cached for good. */
export interface StaticAsset {
  /** The URL path, `/assets/<name>.<hash>.<ext>`. */
  path: string;
  contentType: string;
  body: Uint8Array;
}

/** The dashboard's static files: the stylesheet, htmx (from the htmx.org package), the local-time, copy and mailed-token scripts, the icon. */
export interface StaticAssets {
  css: StaticAsset;
  htmx: StaticAsset;
  localTime: StaticAsset;
  copyButton: StaticAsset;
  /** Loaded by the pages with live regions: pauses their polling while the tab is hidden or by the page's button. */
  liveRefresh: StaticAsset;
  /** Loaded by the pages of mailed links only: copies the token from the link's fragment into the page's form. */
  fragmentToken: StaticAsset;
  favicon: StaticAsset;
  /** The asset served at that path, if any. */
  byPath(path: string): StaticAsset | undefined;
}

const ASSETS_DIR = new URL("../assets/", import.meta.url);
const require = createRequire(import.meta.url);

function asset(name: string, ext: string, contentType: string, file: string): StaticAsset {
  const body = readFileSync(file);
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { path: `/assets/${name}.${hash}.${ext}`, contentType, body };
}

/**
 * Reads the static files once (at start-up). htmx is served from the installed `htmx.org`
 * package's own minified file: no CDN, no copy in the repository, no build step. Scripts are
 * files on the same origin so the Content-Security-Policy can forbid inline script.
 */
export function loadStaticAssets(): StaticAssets {
  const css = asset("dashboard", "css", "text/css; charset=utf-8", fileURLToPath(new URL("dashboard.css", ASSETS_DIR)));
  const htmx = asset("htmx", "js", "text/javascript; charset=utf-8", require.resolve("htmx.org/dist/htmx.min.js"));
  const localTime = asset("local-time", "js", "text/javascript; charset=utf-8", fileURLToPath(new URL("local-time.js", ASSETS_DIR)));
  const copyButton = asset("copy-button", "js", "text/javascript; charset=utf-8", fileURLToPath(new URL("copy-button.js", ASSETS_DIR)));
  const liveRefresh = asset("live-refresh", "js", "text/javascript; charset=utf-8", fileURLToPath(new URL("live-refresh.js", ASSETS_DIR)));
  const fragmentToken = asset("fragment-token", "js", "text/javascript; charset=utf-8", fileURLToPath(new URL("fragment-token.js", ASSETS_DIR)));
  const favicon = asset("favicon", "svg", "image/svg+xml", fileURLToPath(new URL("favicon.svg", ASSETS_DIR)));
  const all = new Map([css, htmx, localTime, copyButton, liveRefresh, fragmentToken, favicon].map((a) => [a.path, a]));
  return { css, htmx, localTime, copyButton, liveRefresh, fragmentToken, favicon, byPath: (path) => all.get(path) };
}
