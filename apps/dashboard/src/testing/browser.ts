// Browser test support: Debian's Chromium driven by playwright-core (never a downloaded browser
// build), a watch on every page's console that fails a test on any error or CSP violation, and
// an axe-core scan injected from the axe-core package's own file.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";

/** Where Debian's `chromium` package puts the browser (CHROMIUM_PATH overrides it). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const require = createRequire(import.meta.url);
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * Starts headless Chromium from CHROMIUM_PATH. A missing browser fails the test with how to
 * install it (`.ci/run` installs Debian's package when it is missing): browser tests are never
 * skipped.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}: run \`apt-get install -y --no-install-recommends chromium\` (.ci/run does) or set CHROMIUM_PATH.`);
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true });
}

/** What went wrong on a page: console errors (CSP violations are among them), uncaught exceptions. */
export interface PageProblems {
  /** Every problem seen since the watch started or was last cleared. */
  readonly seen: string[];
  /** Forgets what was seen (after a step that expected a failing status). */
  clear(): void;
}

/**
 * Records every console error and uncaught exception of `page`. Chromium reports a blocked
 * inline script or style, a refused connection and a failed load (a 4xx or 5xx of any
 * resource, the page itself included) as console errors, so an empty `seen` after a step means
 * that step ran clean under the Content-Security-Policy.
 */
export function watchPage(page: Page): PageProblems {
  const seen: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") seen.push(`console error on ${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => seen.push(`uncaught exception on ${page.url()}: ${error.message}`));
  return {
    seen,
    clear: () => {
      seen.length = 0;
    },
  };
}

/** One axe-core violation, as a test reports it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core on the page as it is now and returns its serious and critical violations. The
 * script is evaluated through the DevTools protocol (as an extension would be), so the page's
 * CSP, which forbids inline script, still holds for the page itself.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
  // Strings, not functions: this file is compiled without the DOM's types.
  const hasAxe = await page.evaluate<boolean>("typeof window.axe === 'object'");
  if (!hasAxe) await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')) })))",
  );
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/**
 * Saves a screenshot of the page for docs/dashboard.md, as `docs/dashboard/<name>.png`, only
 * when UPDATE_SCREENSHOTS=1: an ordinary `pnpm test` leaves the working tree as it was.
 * @returns whether a file was written.
 */
export async function saveDocScreenshot(page: Page, name: string): Promise<boolean> {
  if (process.env.UPDATE_SCREENSHOTS !== "1") return false;
  const file = join(REPO_ROOT, "docs", "dashboard", `${name}.png`);
  mkdirSync(dirname(file), { recursive: true });
  // caret "initial": hiding it would inject a style element, which the page's CSP refuses.
  await page.screenshot({ path: file, fullPage: true, caret: "initial" });
  return true;
}

/** True when the page is wider than its viewport (a phone would scroll sideways). */
export async function overflowsSideways(page: Page): Promise<boolean> {
  return page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth + 1");
}
