import type { Page } from "playwright-core";
import { expect } from "vitest";
import { saveDocScreenshot, seriousAxeViolations, type PageProblems } from "./browser.ts";

/**
 * The check every dashboard page test makes of the page it is on: no serious or critical axe
 * violation, no console error or CSP report so far, and, when `shot` names one, its screenshot
 * for docs/dashboard.md (written only under UPDATE_SCREENSHOTS=1).
 */
export async function expectCleanPage(page: Page, problems: PageProblems, shot?: string): Promise<void> {
  expect(await seriousAxeViolations(page), page.url()).toEqual([]);
  expect(problems.seen).toEqual([]);
  if (shot !== undefined) await saveDocScreenshot(page, shot);
}
