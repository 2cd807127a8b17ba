import { OPERATIONAL_SCOPES } from "@agentq/core";
import { approveForTest } from "@agentq/core/testing";
import { expectCleanPage, launchChromium, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// Issue 30's "last active" in real Chromium: the Accounts page, an account's page and the
// Credentials page show when each AI account and credential last authenticated a request ("Never"
// before), and the figure moves when the credential is used over REST; a Connection's "Last used"
// moves when its access token is used over /mcp, not only when a token is issued. The record is a
// throttled write (at most once a minute per credential and process), so the tests age the stored
// time and drop the process's cache entry (as a minute's wait would) to see it move again.
// Another workspace never sees any of it.
type Json = Record<string, any>;
const REDIRECT = "http://127.0.0.1:43117/callback";

describe("dashboard: last active and last used in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;
  let workerId = "";
  let busy = { id: "", token: "" };
  let idle = { id: "", token: "" };

  async function issue(person: DashboardPerson, accountId: string, name: string): Promise<{ id: string; token: string }> {
    const res = await fetch(`${served.baseUrl}/v1/credentials`, { method: "POST", headers: sessionHeaders(served.baseUrl, person.cookie), body: JSON.stringify({ ai_account_id: accountId, tier: "operational", scopes: OPERATIONAL_SCOPES, name }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    return { id: body.credential.id as string, token: body.token as string };
  }
  const me = (token: string) => fetch(`${served.baseUrl}/v1/me`, { headers: { Authorization: `Bearer ${token}` } });
  /** The instant a page's "last active" cell carries (its data attribute), or "never". */
  const lastActiveIn = (selector: string) => page.locator(`${selector} [data-last-active]`).first().getAttribute("data-last-active");
  /** True when `value` is an instant of the last `ms` milliseconds. */
  const recent = (value: string | null, ms = 60_000) => value !== null && value !== "never" && Math.abs(Date.now() - Date.parse(value)) < ms;
  /** What the process would do after a minute: read the credential again (its use is recorded once its last record is stale). */
  const forgetCached = (credentialId: string) => served.service.deps.credentialCache?.forget(credentialId);

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@active.test", password: "a long and quiet river", workspaceName: "Active Works", aiAccount: "planner" });
    other = await signUpForDashboard(served, { email: "bea@active.test", password: "another long quiet river", workspaceName: "Other Works", aiAccount: "elsewhere" });
    const created = await fetch(`${served.baseUrl}/v1/ai-accounts`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: JSON.stringify({ friendly_name: "worker" }) });
    workerId = ((await created.json()) as Json).id as string;
    busy = await issue(owner, workerId, "worker-busy");
    idle = await issue(owner, workerId, "worker-idle");
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
    await signInOnPage(page, served.baseUrl, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);

  it("before any use, the account and its credentials say Never", async () => {
    await page.goto(`${served.baseUrl}/accounts`);
    expect(await lastActiveIn('tr[data-account="worker"]')).toBe("never");
    expect(await page.locator('tr[data-account="worker"] [data-last-active]').textContent()).toBe("Never");
    await page.goto(`${served.baseUrl}/credentials`);
    expect(await page.getByRole("columnheader", { name: "Last used" }).count()).toBe(1);
    for (const c of [busy, idle]) expect(await lastActiveIn(`tr[data-credential="${c.id}"]`)).toBe("never");
  });

  it("a credential used over REST shows a recent last use, and its account a recent last activity; the unused one stays Never", async () => {
    expect((await me(busy.token)).status).toBe(200);
    // The record is written beside the request, not in it: it lands a moment later.
    await expect.poll(async () => (await served.db.sql<{ at: Date | null }[]>`SELECT last_used_at AS at FROM credentials WHERE id = ${busy.id}`)[0]?.at ?? null).not.toBeNull();
    await page.goto(`${served.baseUrl}/credentials`);
    expect(recent(await lastActiveIn(`tr[data-credential="${busy.id}"]`))).toBe(true);
    expect(await lastActiveIn(`tr[data-credential="${idle.id}"]`)).toBe("never");
    expect(await page.locator(`tr[data-credential="${busy.id}"] [data-last-active] time`).count()).toBe(1);
    await checkPage("credentials-last-used");
    await page.goto(`${served.baseUrl}/accounts`);
    expect(recent(await lastActiveIn('tr[data-account="worker"]'))).toBe(true);
    expect(await lastActiveIn('tr[data-account="planner"]')).toBe("never");
    await checkPage("accounts-last-active");
    await page.goto(`${served.baseUrl}/accounts/${workerId}`);
    expect(recent(await lastActiveIn("dl"))).toBe(true);
    expect(recent(await lastActiveIn(`tr[data-credential="${busy.id}"]`))).toBe(true);
    await checkPage();
  });

  it("within the minute more requests write nothing; an hour later the next use moves the figures again", async () => {
    const before = (await served.db.sql<{ at: Date }[]>`SELECT last_used_at AS at FROM credentials WHERE id = ${busy.id}`)[0]?.at as Date;
    for (let i = 0; i < 5; i++) expect((await me(busy.token)).status).toBe(200);
    expect((await served.db.sql<{ at: Date }[]>`SELECT last_used_at AS at FROM credentials WHERE id = ${busy.id}`)[0]?.at).toEqual(before);

    await served.db.sql`UPDATE credentials SET last_used_at = now() - interval '1 hour' WHERE id = ${busy.id}`;
    await served.db.sql`UPDATE ai_accounts SET last_active_at = now() - interval '1 hour' WHERE id = ${workerId}`;
    forgetCached(busy.id);
    await page.goto(`${served.baseUrl}/credentials`);
    const aged = await lastActiveIn(`tr[data-credential="${busy.id}"]`);
    expect(recent(aged)).toBe(false);
    expect(recent(aged, 2 * 3_600_000)).toBe(true);
    expect((await me(busy.token)).status).toBe(200);
    await expect.poll(async () => { await page.goto(`${served.baseUrl}/credentials`); return recent(await lastActiveIn(`tr[data-credential="${busy.id}"]`)); }).toBe(true);
    await page.goto(`${served.baseUrl}/accounts/${workerId}`);
    expect(recent(await lastActiveIn("dl"))).toBe(true);
    await checkPage();
  });

  it("a connection's Last used moves when its access token is used over /mcp", async () => {
    const reg = await fetch(`${served.baseUrl}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: "Cursor Zed", redirect_uris: ["http://127.0.0.1/callback"] }) });
    const clientId = ((await reg.json()) as Json).client_id as string;
    const client = await served.service.deps.stores.oauth.findClient({ clientId });
    const { code, verifier } = await approveForTest(served.service.deps, { client: client!, workspaceId: owner.workspaceId, aiAccountId: owner.aiAccountId as string, redirectUri: REDIRECT });
    const res = await fetch(`${served.baseUrl}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier }).toString() });
    expect(res.status).toBe(200);
    const access = ((await res.json()) as Json).access_token as string;
    const [grant] = await served.db.sql<{ id: string }[]>`SELECT id FROM oauth_grants WHERE client_id = ${clientId}`;
    // The grant was approved an hour ago, and its token not used since.
    await served.db.sql`UPDATE oauth_grants SET last_used_at = now() - interval '1 hour', created_at = now() - interval '1 hour' WHERE id = ${grant?.id as string}`;
    const row = `tr[data-connection="${grant?.id as string}"]`;
    await page.goto(`${served.baseUrl}/connections`);
    expect(recent(await lastActiveIn(row))).toBe(false);

    const mcp = await fetch(`${served.baseUrl}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${access}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "last-active-test", version: "1" } } }),
    });
    expect(mcp.status).toBe(200);
    await mcp.body?.cancel();
    await expect.poll(async () => { await page.goto(`${served.baseUrl}/connections`); return recent(await lastActiveIn(row)); }).toBe(true);
    // The account it acts as (planner) became active through it too.
    await page.goto(`${served.baseUrl}/accounts`);
    expect(recent(await lastActiveIn('tr[data-account="planner"]'))).toBe(true);
    await checkPage("connections-last-used");
  });

  it("another workspace sees none of it: not the account's page, not its series, not its credentials or connections", async () => {
    const get = (path: string) => fetch(`${served.baseUrl}${path}`, { headers: { Cookie: other.cookie } });
    expect((await get(`/accounts/${workerId}`)).status).toBe(404);
    expect((await get(`/v1/workspaces/me/stats?ai_account_id=${workerId}`)).status).toBe(404);
    const accounts = (await (await get("/v1/ai-accounts")).json()) as Json;
    expect(accounts.items.map((a: Json) => a.friendly_name)).toEqual(["elsewhere"]);
    expect(accounts.items[0].last_active_at).toBeNull();
    for (const path of ["/accounts", "/credentials", "/connections"]) {
      const html = await (await get(path)).text();
      expect(html, path).not.toContain('data-account="worker"');
      expect(html, path).not.toContain("worker-busy");
      expect(html, path).not.toContain(busy.id);
      expect(html, path).not.toContain("Cursor Zed");
    }
    // The REST read of this workspace carries the same figures the pages show.
    const mine = (await (await fetch(`${served.baseUrl}/v1/credentials/${busy.id}`, { headers: { Cookie: owner.cookie } })).json()) as Json;
    expect(recent(mine.last_used_at)).toBe(true);
  });
});
