import { expectCleanPage, launchChromium, overflowsSideways, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextMailTo } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// The People page in real Chromium, with invitations mailed to a real SMTP receiver: an owner
// invites a viewer (who sets a password from the mailed link and signs in), a viewer is refused
// the page, an owner promotes them to admin, the last owner cannot demote themselves, removing
// ends the person's session; another workspace's people never show and cannot be touched.
describe("dashboard: people in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;
  let ivyContext: BrowserContext;
  let ivyPage: Page;
  const ivy = { email: "ivy@people.test", password: "a river that is long and quiet" };

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@people.test", password: "a long and quiet river", workspaceName: "People Works" });
    other = await signUpForDashboard(served, { email: "bea@people.test", password: "another long quiet river", workspaceName: "Other Works" });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
    ivyContext = await browser.newContext();
    ivyPage = await ivyContext.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);
  const personId = async (email: string) => ((await served.db.sql<{ id: string }[]>`SELECT id FROM persons WHERE email = ${email}`)[0]?.id ?? "");

  it("invites a viewer: the link is mailed, they set a password and sign in", async () => {
    await signInOnPage(page, served.baseUrl, owner);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "People" }).click();
    await page.waitForURL(`${served.baseUrl}/people`);
    expect(await page.locator("tr[data-person]").count()).toBe(1);
    await page.getByLabel("Invite by email").fill(ivy.email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Invite" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Invited: the link");
    const row = page.locator(`tr[data-person="${ivy.email}"]`);
    expect(await row.locator("[data-role]").textContent()).toBe("viewer");
    expect(await row.textContent()).toContain("invited, no password yet");
    await checkPage("people");

    const mail = await nextMailTo(served.smtp, ivy.email, 0);
    const token = /agq_iv_[A-Za-z0-9_-]+/.exec(mail?.text ?? "")?.[0] ?? "";
    expect(token).not.toBe("");
    const set = await fetch(`${served.baseUrl}/v1/auth/password-reset/confirm`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token, password: ivy.password }) });
    expect(set.status).toBe(204);
    await signInOnPage(ivyPage, served.baseUrl, { ...ivy, workspaceId: owner.workspaceId, cookie: "", totp: null, recoveryCodes: [], aiAccountId: null });
  });

  it("a viewer is refused the page and its actions with 403 SVC_TIER_INSUFFICIENT", async () => {
    const seen = await ivyPage.goto(`${served.baseUrl}/people`);
    expect(seen?.status()).toBe(403);
    expect(await ivyPage.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_TIER_INSUFFICIENT");
    expect(await ivyPage.content()).not.toContain(owner.email);
    const posted = await ivyContext.request.post(`${served.baseUrl}/people`, { form: { email: "sneaky@people.test", role: "admin" }, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
    expect(posted.status()).toBe(403);
    expect(await served.db.sql`SELECT 1 FROM persons WHERE email = 'sneaky@people.test'`).toHaveLength(0);
  });

  it("the owner makes the viewer an admin, who then sees the people but is offered no owner role", async () => {
    await page.getByLabel(`Role of ${ivy.email}`).selectOption("admin");
    await page.locator(`tr[data-person="${ivy.email}"]`).getByRole("button", { name: "Change" }).click();
    await expect.poll(() => page.locator(`tr[data-person="${ivy.email}"] [data-role]`).textContent()).toBe("admin");
    await ivyPage.goto(`${served.baseUrl}/people`);
    expect(await ivyPage.locator("tr[data-person]").count()).toBe(2);
    expect(await ivyPage.locator(`tr[data-person="${owner.email}"] form`).count()).toBe(0);
    expect(await ivyPage.locator("#invite-role option").allTextContents()).toEqual(["admin", "viewer"]);
    await checkPage();
  });

  it("the last owner cannot demote themselves (409 SVC_RESOURCE_CONFLICT)", async () => {
    await page.getByLabel(`Role of ${owner.email}`).selectOption("admin");
    await page.locator(`tr[data-person="${owner.email}"]`).getByRole("button", { name: "Change" }).click();
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_RESOURCE_CONFLICT");
    expect(await page.locator(`tr[data-person="${owner.email}"] [data-role]`).textContent()).toBe("owner");
    expect(problems.seen.filter((p) => !p.includes("status of 409"))).toEqual([]);
    problems.clear();
  });

  it("fits a phone's width", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${served.baseUrl}/people`);
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems.seen).toEqual([]);
  });

  it("another workspace sees only its own people and cannot remove this workspace's", async () => {
    const context = await browser.newContext();
    const pageB = await context.newPage();
    await signInOnPage(pageB, served.baseUrl, other);
    await pageB.goto(`${served.baseUrl}/people`);
    expect(await pageB.locator("tr[data-person]").count()).toBe(1);
    expect(await pageB.content()).not.toContain(ivy.email);
    const posted = await context.request.post(`${served.baseUrl}/people/${await personId(ivy.email)}/remove`, { form: { confirm: "yes" }, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
    expect(posted.status()).toBe(404);
    expect(await posted.text()).toContain('data-error-code="SVC_RESOURCE_NOT_FOUND"');
    await context.close();
  });

  it("removes the admin: gone from the list, and their session has ended", async () => {
    // It asks first, on a page of its own.
    await page.getByRole("link", { name: `Remove ${ivy.email}` }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe(`Remove ${ivy.email}?`);
    await checkPage();
    await page.getByRole("button", { name: `Remove ${ivy.email}` }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Removed");
    expect(await page.locator(`tr[data-person="${ivy.email}"]`).count()).toBe(0);
    await ivyPage.goto(`${served.baseUrl}/people`);
    await ivyPage.waitForURL(/\/sign-in\?return_to=%2Fpeople$/);
    await checkPage();
  });
});
