import { readFileSync } from "node:fs";
import { expectCleanPage, launchChromium, overflowsSideways, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// Settings' export, close and erase in real Chromium: the export downloads GET /v1/me/export;
// closing (owner, step-up, typed name) revokes the agents; erasing (step-up, typed email) signs
// the person out for good. A stale step-up goes through the step-up page; a person without MFA
// is told to set it up; another workspace is untouched and never in the export.
describe("dashboard: export, close and erase in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@closing.test", password: "a long and quiet river", workspaceName: "Closing Works", mfa: true, aiAccount: "worker" });
    other = await signUpForDashboard(served, { email: "bea@closing.test", password: "another long quiet river", workspaceName: "Other Works", aiAccount: "helper" });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true })).newPage();
    problems = watchPage(page);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);
  const workspaceState = async (id: string) => (await served.db.sql<{ state: string }[]>`SELECT state FROM workspaces WHERE id = ${id}`)[0]?.state;

  it("exports my data from a confirmation page: the download is this workspace's document only", async () => {
    await signInOnPage(page, served.baseUrl, owner);
    await page.goto(`${served.baseUrl}/settings`);
    await page.getByRole("link", { name: "Export my data" }).click();
    await page.waitForURL(`${served.baseUrl}/settings/export`);
    await checkPage("export");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download the export" }).click()]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^agentq-export-${owner.workspaceId}-\\d{4}-\\d{2}-\\d{2}\\.json$`));
    const text = readFileSync(await download.path(), "utf8");
    const doc = JSON.parse(text) as { format: string };
    expect(doc.format).toBe("agentq.export.v1");
    expect(text).toContain(owner.workspaceId);
    expect(text).toContain("worker");
    expect(text).not.toContain(other.workspaceId);
    expect(text).not.toContain("helper");
  });

  it("closing needs a fresh step-up: the page links to it, and a stale one on submit goes through it and back", async () => {
    await served.db.sql`UPDATE person_sessions SET step_up_until = now() - interval '1 minute' WHERE workspace_id = ${owner.workspaceId}`;
    await page.goto(`${served.baseUrl}/settings`);
    await page.getByRole("link", { name: "Close the workspace" }).click();
    await page.waitForURL(`${served.baseUrl}/settings/close`);
    expect(await page.getByLabel("Type the workspace's name to confirm").count()).toBe(0);
    await page.getByRole("link", { name: "Confirm it is you" }).click();
    await page.waitForURL(/\/settings\/step-up\?return_to=%2Fsettings%2Fclose$/);
    await page.locator("summary", { hasText: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(owner.recoveryCodes[0] ?? "");
    await page.getByRole("button", { name: "Confirm it is you" }).click();
    await page.waitForURL(`${served.baseUrl}/settings/close`);
    await checkPage("close-workspace");
    // The confirmation must be the name itself.
    await page.getByLabel("Type the workspace's name to confirm").fill("closing works");
    await page.getByRole("button", { name: "Close the workspace" }).click();
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_MALFORMED_REQUEST");
    expect(await workspaceState(owner.workspaceId)).toBe("active");
    problems.clear();
    // The step-up runs out again while the owner types: the submission goes through the step-up page.
    await served.db.sql`UPDATE person_sessions SET step_up_until = now() - interval '1 minute' WHERE workspace_id = ${owner.workspaceId}`;
    await page.getByLabel("Type the workspace's name to confirm").fill("Closing Works");
    await page.getByRole("button", { name: "Close the workspace" }).click();
    await page.waitForURL(/\/settings\/step-up\?return_to=%2Fsettings%2Fclose$/);
    expect(await workspaceState(owner.workspaceId)).toBe("active");
    await page.locator("summary", { hasText: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(owner.recoveryCodes[1] ?? "");
    await page.getByRole("button", { name: "Confirm it is you" }).click();
    await page.waitForURL(`${served.baseUrl}/settings/close`);
    await page.getByLabel("Type the workspace's name to confirm").fill("Closing Works");
    await page.getByRole("button", { name: "Close the workspace" }).click();
    await page.waitForURL(`${served.baseUrl}/settings?done=closed`);
    expect(await page.getByRole("status").first().textContent()).toContain("The workspace is closed");
    expect(await workspaceState(owner.workspaceId)).toBe("closed");
    expect((await served.db.sql<{ state: string }[]>`SELECT state FROM ai_accounts WHERE workspace_id = ${owner.workspaceId}`).map((r) => r.state)).toEqual(["revoked"]);
    // The other workspace is untouched.
    expect(await workspaceState(other.workspaceId)).toBe("active");
    expect((await served.db.sql<{ state: string }[]>`SELECT state FROM ai_accounts WHERE workspace_id = ${other.workspaceId}`).map((r) => r.state)).toEqual(["active"]);
    await checkPage();
  });

  it("fits a phone's width", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    for (const path of ["/settings", "/settings/export", "/settings/erase"]) {
      await page.goto(`${served.baseUrl}${path}`);
      expect(await overflowsSideways(page), path).toBe(false);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems.seen).toEqual([]);
  });

  it("erases me (still possible in the closed workspace): signed out, and the password no longer signs in", async () => {
    await page.goto(`${served.baseUrl}/settings`);
    await page.getByRole("link", { name: "Erase me" }).click();
    await page.waitForURL(`${served.baseUrl}/settings/erase`);
    await checkPage("erase-me");
    await page.getByLabel("Type your email address to confirm").fill(owner.email);
    await page.getByRole("button", { name: "Erase me" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("You are erased");
    expect(await page.locator("[data-erased]").count()).toBe(1);
    expect(await served.db.sql`SELECT 1 FROM persons WHERE email = ${owner.email}`).toHaveLength(0);
    await page.goto(`${served.baseUrl}/settings`);
    await page.waitForURL(/\/sign-in\?return_to=%2Fsettings$/);
    await page.getByLabel("Email").fill(owner.email);
    await page.getByLabel("Password").fill(owner.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_UNAUTHENTICATED");
    problems.clear();
  });

  it("a person without two-step verification is sent to set it up, and nothing is closed", async () => {
    const context = await browser.newContext();
    const pageB = await context.newPage();
    await signInOnPage(pageB, served.baseUrl, other);
    await pageB.goto(`${served.baseUrl}/settings/close`);
    await pageB.getByRole("link", { name: "Confirm it is you" }).click();
    await pageB.waitForURL(/\/settings\/step-up/);
    expect(await pageB.locator("[data-mfa-needed]").count()).toBe(1);
    const posted = await context.request.post(`${served.baseUrl}/settings/close`, { form: { confirm: "Other Works" }, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
    expect(posted.status()).toBe(303);
    expect(posted.headers().location).toBe("/settings/step-up?return_to=%2Fsettings%2Fclose");
    expect(await workspaceState(other.workspaceId)).toBe("active");
    await context.close();
  });
});
