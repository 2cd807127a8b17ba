import { decideNotice, reviewNotice } from "@agentq/core";
import { expectCleanPage, launchChromium, overflowsSideways, type PageProblems, saveDocScreenshot, watchPage } from "@agentq/dashboard/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { seedPerson } from "../testing/people.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// The Notices page in real Chromium: a workspace's owner sees the notices disclosed to it (only
// once the operator acted), their state, dates and statement of reasons, and files a complaint;
// a stale step-up sends them through the step-up page and back. A person of another workspace
// never sees them, and cannot contest them.
describe("dashboard: notices in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let contextA: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;
  let decidedId = "";
  let pendingId = "";
  const REASON = "The account sent fake invoices to other agents.";

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@notices.test", password: "a long and quiet river", workspaceName: "Noticed Works", mfa: true, aiAccount: "invoicer" });
    other = await signUpForDashboard(served, { email: "bea@notices.test", password: "another long quiet river", workspaceName: "Other Works", mfa: true });
    // Both notices name the owner's AI account; the operator decides one (which discloses it) and only reviews the other.
    const account = { id: owner.aiAccountId as string };
    const file = async () => {
      const res = await fetch(`${served.baseUrl}/v1/notices`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ kind: "dsa", category: "scams_and_fraud", explanation: "It sends fake invoices.", locations: [{ type: "ai_account", id: account.id, workspace_id: owner.workspaceId }], notifier: { name: "Nora", email: "nora@example.org" }, good_faith_statement: true }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { notice: { id: string } }).notice.id;
    };
    decidedId = await file();
    pendingId = await file();
    await reviewNotice(served.service.deps, { noticeId: decidedId });
    await decideNotice(served.service.deps, { noticeId: decidedId, action: "freeze_account", reason: REASON });
    await reviewNotice(served.service.deps, { noticeId: pendingId });
    browser = await launchChromium();
    contextA = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await contextA.newPage();
    problems = watchPage(page);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);

  it("lists only the notices disclosed to the workspace, with their state and dates", async () => {
    await signInOnPage(page, served.baseUrl, owner);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Notices" }).click();
    await page.waitForURL(`${served.baseUrl}/notices`);
    expect(await page.locator("tr[data-notice]").count()).toBe(1);
    expect(await page.locator(`tr[data-notice="${pendingId}"]`).count()).toBe(0);
    const row = page.locator(`tr[data-notice="${decidedId}"]`);
    expect(await row.locator(".badge").textContent()).toBe("action taken");
    expect(await row.locator("time").count()).toBe(2);
    await checkPage("notices");
  });

  it("an admin of the workspace sees the notice but not the form: only an owner contests", async () => {
    const admin = await seedPerson(served.service.deps, { workspaceId: owner.workspaceId, email: "admin@notices.test", role: "admin", password: "a deputy's long quiet river" });
    const context = await browser.newContext();
    const adminPage = await context.newPage();
    await signInOnPage(adminPage, served.baseUrl, { email: admin.email, password: "a deputy's long quiet river", workspaceId: owner.workspaceId, cookie: "", totp: null, recoveryCodes: [], aiAccountId: null });
    await adminPage.goto(`${served.baseUrl}/notices/${decidedId}`);
    expect(await adminPage.locator("[data-facts]").textContent()).toBe(REASON);
    expect(await adminPage.getByText("Only an owner of the workspace may contest the decision.").count()).toBe(1);
    expect(await adminPage.getByLabel("Why the decision is wrong").count()).toBe(0);
    await context.close();
  });

  it("shows one notice with its statement of reasons; a stale step-up goes through the step-up page and back, and the complaint is filed", async () => {
    await page.getByRole("link", { name: "DSA notice" }).click();
    await page.waitForURL(`${served.baseUrl}/notices/${decidedId}`);
    expect(await page.locator("[data-facts]").textContent()).toBe(REASON);
    expect(await page.locator("[data-statement-of-reasons]").textContent()).toContain("Regulation (EU) 2022/2065");
    // The sign-in with a code counts as a step-up: the form is there.
    expect(await page.getByLabel("Why the decision is wrong").count()).toBe(1);
    await checkPage("notice");

    // Five minutes pass (the step-up expires) while the owner writes.
    await served.db.sql`UPDATE person_sessions SET step_up_until = now() - interval '1 minute' WHERE workspace_id = ${owner.workspaceId}`;
    await page.getByLabel("Why the decision is wrong").fill("The invoices were real: they were ours.");
    await page.getByRole("button", { name: "Send the complaint" }).click();
    await page.waitForURL(/\/settings\/step-up\?return_to=%2Fnotices%2F/);
    expect(await page.locator("h1").textContent()).toBe("Confirm it is you");
    await checkPage("step-up");
    await page.locator("summary", { hasText: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(owner.recoveryCodes[0] ?? "");
    await page.getByRole("button", { name: "Confirm it is you" }).click();
    await page.waitForURL(`${served.baseUrl}/notices/${decidedId}`);
    await page.getByLabel("Why the decision is wrong").fill("The invoices were real: they were ours.");
    await page.getByRole("button", { name: "Send the complaint" }).click();
    await page.waitForURL(`${served.baseUrl}/notices/${decidedId}?done=contested`);
    expect(await page.locator("[data-notice-state]").getAttribute("data-notice-state")).toBe("contested");
    expect(await page.locator("[data-counter-notice]").count()).toBe(1);
    await checkPage();
    // The same state over REST, and the step in the workspace's audit log.
    const login = await fetch(`${served.baseUrl}/v1/notices/${decidedId}`, { headers: { Cookie: (await contextA.cookies()).map((k) => `${k.name}=${k.value}`).join("; ") } });
    expect(((await login.json()) as { state: string }).state).toBe("contested");
    const audit = await served.db.sql`SELECT count(*)::int AS n FROM audit_log WHERE workspace_id = ${owner.workspaceId} AND activity = 'notice.contested'`;
    expect(audit[0]?.n).toBe(1);
  });

  it("fits a phone's width", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    for (const path of ["/notices", `/notices/${decidedId}`, `/settings/step-up?return_to=%2Fnotices`]) {
      await page.goto(`${served.baseUrl}${path}`);
      expect(await overflowsSideways(page), path).toBe(false);
    }
    await saveDocScreenshot(page, "phone-notice");
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems.seen).toEqual([]);
  });

  it("a person of another workspace sees none of them and cannot contest one", async () => {
    const contextB = await browser.newContext();
    const pageB = await contextB.newPage();
    await signInOnPage(pageB, served.baseUrl, other);
    await pageB.goto(`${served.baseUrl}/notices`);
    expect(await pageB.locator("[data-empty]").count()).toBe(1);
    expect(await pageB.locator("tr[data-notice]").count()).toBe(0);
    const one = await pageB.goto(`${served.baseUrl}/notices/${decidedId}`);
    expect(one?.status()).toBe(404);
    expect(await pageB.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await pageB.content()).not.toContain(REASON);
    // B's sign-in with a code is a fresh step-up: the refusal is the notice's, not the step-up's.
    const posted = await contextB.request.post(`${served.baseUrl}/notices/${decidedId}/counter-notice`, { form: { explanation: "not mine" }, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
    expect(posted.status()).toBe(404);
    expect(await posted.text()).toContain("SVC_RESOURCE_NOT_FOUND");
    // Over REST with B's session: the public view only (state and dates).
    const cookie = (await contextB.cookies()).map((k) => `${k.name}=${k.value}`).join("; ");
    const rest = await fetch(`${served.baseUrl}/v1/notices/${decidedId}`, { headers: { Cookie: cookie } });
    expect(Object.keys((await rest.json()) as object).sort()).toEqual(["id", "kind", "received_at", "state", "updated_at"]);
    await contextB.close();
  });
});
