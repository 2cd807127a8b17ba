import { OPERATIONAL_SCOPES } from "@agentq/core";
import { expectCleanPage, launchChromium, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerRest, type Json } from "../testing/bearer-rest.ts";
import { sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// Destructive actions ask first, on a page of their own that works without JavaScript (an AI
// account is revoked in a browser that runs none): revoking an AI account or a credential,
// purging a dead letter; Cancel changes nothing, a bare POST gets the question too. The dead letters a filter selects are
// released or purged together, their count shown before confirming, and only those.

describe("dashboard: destructive actions ask first, in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let bare: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let sender = "";
  const tokens: Record<string, string> = {};
  const accountIds: Record<string, string> = {};
  const credentialIds: Record<string, string> = {};

  const rest = (token: string, method: string, path: string, body?: unknown) => bearerRest(served.baseUrl)(token, method, path, body);
  /** Sends `n` notes to `to` and dead-letters them (one delivery allowed: a nacked message's next claim dead-letters it). */
  async function deadLetters(to: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await rest(sender, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: to }, template: "note" }, payload: { text: `${to} ${i}` } })).body.message_id as string);
    const claimed = (await rest(tokens[to] as string, "POST", "/v1/messages/get-pending", { max: 10 })).body.items as Json[];
    for (const item of claimed) expect((await rest(tokens[to] as string, "POST", `/v1/messages/${item.envelope.message_id as string}/nack`, { lease_id: item.lease.lease_id })).status).toBe(200);
    expect((await rest(tokens[to] as string, "POST", "/v1/messages/get-pending", { max: 10 })).body.items).toEqual([]);
    return ids;
  }
  const stateOf = async (id: string) => {
    const res = await fetch(`${served.baseUrl}/v1/messages/${id}`, { headers: sessionHeaders(served.baseUrl, owner.cookie) });
    return res.status === 404 ? "gone" : (((await res.json()) as Json).state as string);
  };

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@careful.test", password: "a long and quiet river", workspaceName: "Careful Works", aiAccount: "sender" });
    const post = async (path: string, body: unknown) => (await (await fetch(`${served.baseUrl}${path}`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: JSON.stringify(body) })).json()) as Json;
    accountIds.sender = owner.aiAccountId as string;
    for (const name of ["alpha", "beta", "doomed"]) accountIds[name] = (await post("/v1/ai-accounts", { friendly_name: name })).id as string;
    for (const name of ["sender", "alpha", "beta", "doomed"]) {
      const issued = await post("/v1/credentials", { ai_account_id: accountIds[name], tier: "operational", scopes: OPERATIONAL_SCOPES, name: `${name}-box` });
      tokens[name] = issued.token as string;
      credentialIds[name] = issued.credential.id as string;
    }
    sender = tokens.sender as string;
    await served.db.sql`UPDATE workspaces SET max_deliveries = 1 WHERE id = ${owner.workspaceId}`;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
    await signInOnPage(page, served.baseUrl, owner);
    bare = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await signInOnPage(bare, served.baseUrl, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);
  const me = async (name: string) => (await rest(tokens[name] as string, "GET", "/v1/me")).status;

  it("revoking an AI account asks first; Cancel keeps it; confirming revokes it and its credentials (no JavaScript)", async () => {
    await page.goto(`${served.baseUrl}/accounts/${accountIds.doomed as string}/revoke?back=%2Faccounts`);
    expect(await page.locator("h1").textContent()).toBe("Revoke doomed?");
    await checkPage("confirm-revoke-account");
    await bare.goto(`${served.baseUrl}/accounts`);
    await bare.getByRole("link", { name: "Revoke doomed" }).click();
    await bare.waitForURL(/\/accounts\/\w+\/revoke\?back=%2Faccounts$/);
    expect(await bare.locator("h1").textContent()).toBe("Revoke doomed?");
    await bare.getByRole("link", { name: "Cancel" }).click();
    await bare.waitForURL(`${served.baseUrl}/accounts`);
    expect(await me("doomed")).toBe(200);
    // A bare POST (an old form, another tool) gets the question, not the revocation.
    const posted = await bare.context().request.post(`${served.baseUrl}/accounts/${accountIds.doomed as string}/revoke`, { form: {}, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
    expect(posted.status()).toBe(200);
    expect(await posted.text()).toContain("Revoke doomed?");
    expect(await me("doomed")).toBe(200);
    await bare.getByRole("link", { name: "Revoke doomed" }).click();
    await bare.getByRole("button", { name: "Revoke doomed" }).click();
    await bare.waitForURL(`${served.baseUrl}/accounts?done=revoked`);
    expect(await me("doomed")).toBe(401);
  });

  it("revoking a credential asks first, naming it and its account", async () => {
    await page.goto(`${served.baseUrl}/credentials?ai_account_id=${accountIds.beta as string}`);
    await page.getByRole("link", { name: "Revoke" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Revoke the credential beta-box?");
    expect(page.url()).toBe(`${served.baseUrl}/credentials/${credentialIds.beta as string}/revoke`);
    expect(await page.locator(".consequences").textContent()).toContain("beta");
    await checkPage();
    expect(await me("beta")).toBe(200);
    await page.getByRole("button", { name: "Revoke beta-box" }).click();
    await expect.poll(() => page.url()).toBe(`${served.baseUrl}/credentials?done=revoked`);
    expect(await me("beta")).toBe(401);
  });

  it("purges one dead letter after asking; releases and purges the ones a filter selects, the count shown first", async () => {
    // beta's credential is revoked: a fresh one to claim with.
    const issued = await fetch(`${served.baseUrl}/v1/credentials`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: JSON.stringify({ ai_account_id: accountIds.beta, tier: "operational", scopes: OPERATIONAL_SCOPES, name: "beta-box-2" }) });
    tokens.beta = ((await issued.json()) as Json).token as string;
    const alphas = await deadLetters("alpha", 3);
    const betas = await deadLetters("beta", 2);

    await page.goto(`${served.baseUrl}/messages/${alphas[0] as string}`);
    await page.getByRole("link", { name: "Purge" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Purge this dead letter?");
    await checkPage();
    await page.getByRole("button", { name: "Purge it" }).click();
    await expect.poll(() => page.url()).toBe(`${served.baseUrl}/messages?state=dead_lettered&done=purged`);
    expect(await stateOf(alphas[0] as string)).toBe("gone");

    await page.goto(`${served.baseUrl}/messages?state=dead_lettered&recipient=alpha`);
    expect(await page.locator("tr[data-message]").count()).toBe(2);
    await page.getByRole("link", { name: "Release every dead letter this filter selects" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Release 2 dead letters?");
    expect(page.url()).toBe(`${served.baseUrl}/dead-letters/release?recipient=alpha`);
    expect(await page.locator("[data-bulk-count]").getAttribute("data-bulk-count")).toBe("2");
    await checkPage("confirm-bulk-release");
    await page.getByRole("button", { name: "Release all 2" }).click();
    await expect.poll(() => page.url()).toMatch(/\/messages\?recipient=alpha&state=dead_lettered&done=bulk_released&count=2&skipped=0$/);
    expect(await page.getByRole("status").first().textContent()).toContain("Released 2 dead letters.");
    expect(await Promise.all(alphas.slice(1).map(stateOf))).toEqual(["pending", "pending"]);
    expect(await Promise.all(betas.map(stateOf))).toEqual(["dead_lettered", "dead_lettered"]);

    await page.goto(`${served.baseUrl}/messages?state=dead_lettered&recipient=beta`);
    await page.getByRole("link", { name: "Purge every dead letter this filter selects" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Purge 2 dead letters?");
    // One changes after the count was shown: it is left, and said.
    const released = await fetch(`${served.baseUrl}/v1/dead-letters/${betas[0] as string}/release`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: "{}" });
    expect(released.status).toBe(200);
    await page.getByRole("button", { name: "Purge all 2" }).click();
    await expect.poll(() => page.url()).toMatch(/done=bulk_purged&count=1&skipped=1$/);
    expect(await page.getByRole("status").first().textContent()).toContain("Purged 1 dead letter. 1 had already changed");
    expect(await Promise.all(betas.map(stateOf))).toEqual(["pending", "gone"]);
    await checkPage();
  });
});
