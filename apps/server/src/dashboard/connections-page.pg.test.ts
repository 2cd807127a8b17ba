import { approveForTest } from "@agentq/core/testing";
import { expectCleanPage, launchChromium, overflowsSideways, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedPerson } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// The Connections page in real Chromium: the workspace's OAuth grants (registered over HTTP,
// approved through the core, since oauth-consent.pg.test.ts drives the consent page itself, and
// exchanged at /oauth/token) with client, AI account, scopes and dates; Disconnect ends the
// client's access at once. A viewer reads only; another workspace's connections never show.
const REDIRECT = "http://127.0.0.1:43117/callback";

describe("dashboard: connections in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;
  let cursor = { id: "", token: "" };
  let claude = { id: "", token: "" };

  /** Registers `clientName`, approves it for the account and exchanges the code: the grant's id and access token. */
  async function connect(person: DashboardPerson, clientName: string): Promise<{ id: string; token: string }> {
    const reg = await fetch(`${served.baseUrl}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: clientName, redirect_uris: ["http://127.0.0.1/callback"] }) });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const client = await served.service.deps.stores.oauth.findClient({ clientId });
    const { code, verifier } = await approveForTest(served.service.deps, { client: client!, workspaceId: person.workspaceId, aiAccountId: person.aiAccountId as string, redirectUri: REDIRECT });
    const res = await fetch(`${served.baseUrl}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier }).toString() });
    expect(res.status).toBe(200);
    const token = ((await res.json()) as { access_token: string }).access_token;
    const [grant] = await served.db.sql<{ id: string }[]>`SELECT id FROM oauth_grants WHERE client_id = ${clientId}`;
    return { id: grant?.id as string, token };
  }
  const me = (token: string) => fetch(`${served.baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@connections.test", password: "a long and quiet river", workspaceName: "Connected Works", aiAccount: "coder" });
    other = await signUpForDashboard(served, { email: "bea@connections.test", password: "another long quiet river", workspaceName: "Other Works", aiAccount: "helper" });
    cursor = await connect(owner, "Cursor");
    claude = await connect(owner, "Claude Code");
    await connect(other, "Other Client");
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);

  it("lists the workspace's connections only: client, AI account, scopes, dates and state", async () => {
    await signInOnPage(page, served.baseUrl, owner);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Connections" }).click();
    await page.waitForURL(`${served.baseUrl}/connections`);
    expect(await page.locator("tr[data-connection]").count()).toBe(2);
    expect(await page.locator(".client-name").allTextContents()).toEqual(expect.arrayContaining(["Cursor", "Claude Code"]));
    expect(await page.content()).not.toContain("Other Client");
    const row = page.locator(`tr[data-connection="${cursor.id}"]`);
    expect(await row.getByRole("link", { name: "coder" }).count()).toBe(1);
    expect(await row.locator("code").allTextContents()).toEqual(expect.arrayContaining(["127.0.0.1:43117", "send", "get_pending"]));
    expect(await row.locator("time").count()).toBe(2);
    expect(await row.locator(".badge").textContent()).toBe("active");
    await checkPage("connections");
  });

  it("disconnects one: its token stops working at once; the other keeps working", async () => {
    expect((await me(cursor.token)).status).toBe(200);
    // It asks first, on a page of its own: Cancel changes nothing.
    await page.getByRole("link", { name: "Disconnect Cursor" }).click();
    await page.waitForURL(`${served.baseUrl}/connections/${cursor.id}/disconnect`);
    expect(await page.locator("h1").textContent()).toBe("Disconnect Cursor?");
    expect(await page.locator(".consequences").textContent()).toContain("acting as coder");
    await checkPage("confirm-disconnect");
    await page.getByRole("link", { name: "Cancel" }).click();
    await page.waitForURL(`${served.baseUrl}/connections`);
    expect((await me(cursor.token)).status).toBe(200);
    await page.getByRole("link", { name: "Disconnect Cursor" }).click();
    await page.getByRole("button", { name: "Disconnect Cursor" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Disconnected");
    const row = page.locator(`tr[data-connection="${cursor.id}"]`);
    expect(await row.locator(".badge").textContent()).toBe("revoked");
    expect(await row.getByRole("link", { name: /^Disconnect/ }).count()).toBe(0);
    expect((await me(cursor.token)).status).toBe(401);
    expect((await me(claude.token)).status).toBe(200);
    await checkPage();
  });

  it("fits a phone's width", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${served.baseUrl}/connections`);
    expect(await overflowsSideways(page)).toBe(false);
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems.seen).toEqual([]);
  });

  it("a viewer reads the list without a Disconnect button, and a disconnect they post is refused with 403 SVC_TIER_INSUFFICIENT", async () => {
    const viewer = await seedPerson(served.service.deps, { workspaceId: owner.workspaceId, email: "vera@connections.test", role: "viewer", password: "a viewer's long quiet river" });
    const context = await browser.newContext();
    const viewerPage = await context.newPage();
    await signInOnPage(viewerPage, served.baseUrl, { email: viewer.email, password: "a viewer's long quiet river", workspaceId: owner.workspaceId, cookie: "", totp: null, recoveryCodes: [], aiAccountId: null });
    await viewerPage.goto(`${served.baseUrl}/connections`);
    expect(await viewerPage.locator("tr[data-connection]").count()).toBe(2);
    expect(await viewerPage.getByRole("link", { name: /^Disconnect/ }).count()).toBe(0);
    const posted = await context.request.post(`${served.baseUrl}/connections/${claude.id}/disconnect`, { form: { confirm: "yes" }, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
    expect(posted.status()).toBe(403);
    expect(await posted.text()).toContain('data-error-code="SVC_TIER_INSUFFICIENT"');
    expect((await me(claude.token)).status).toBe(200);
    await context.close();
  });

  it("a person of another workspace sees only their own, and cannot disconnect this workspace's", async () => {
    const context = await browser.newContext();
    const pageB = await context.newPage();
    await signInOnPage(pageB, served.baseUrl, other);
    await pageB.goto(`${served.baseUrl}/connections`);
    expect(await pageB.locator(".client-name").allTextContents()).toEqual(["Other Client"]);
    const posted = await context.request.post(`${served.baseUrl}/connections/${claude.id}/disconnect`, { form: { confirm: "yes" }, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
    expect(posted.status()).toBe(404);
    expect(await posted.text()).toContain('data-error-code="SVC_RESOURCE_NOT_FOUND"');
    expect((await me(claude.token)).status).toBe(200);
    await context.close();
  });
});
