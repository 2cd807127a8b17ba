import { OPERATIONAL_SCOPES } from "@agentq/core";
import { approveForTest } from "@agentq/core/testing";
import { expectCleanPage, launchChromium, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerRest, type Json } from "../testing/bearer-rest.ts";
import { seedPerson, sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// Issue 30: every destructive action of the dashboard asks first, on a page of its own, without
// JavaScript. For each one, the same three proofs: (a) its link or button leads to the page
// `[data-confirm=<action>]` (axe clean, no console error, and Cancel changes nothing); (b) a bare
// POST, without the confirmation field, is answered with that same page and changes nothing;
// (c) the page's confirm button then acts. What is checked is read back over REST, never from the
// page; a person of another workspace posting the confirmed form gets 404 and changes nothing.
// Closing the workspace and erasing oneself confirm by typing (a refusal, 400, changes nothing).
const REDIRECT = "http://127.0.0.1:43117/callback";

describe("dashboard: every destructive action asks first, in Chromium", () => {
  let served: ServedService;
  let receiver: Server;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let bare: Page;
  let stranger: BrowserContext;
  let owner: DashboardPerson;
  let closer: DashboardPerson;
  const tokens: Record<string, string> = {};
  const accounts: Record<string, string> = {};
  const credentials: Record<string, string> = {};

  const rest = (token: string, method: string, path: string, body?: unknown) => bearerRest(served.baseUrl)(token, method, path, body);
  const asOwner = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${served.baseUrl}${path}`, { method, headers: sessionHeaders(served.baseUrl, owner.cookie, { "Idempotency-Key": crypto.randomUUID() }), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const signedIn = async (token: string) => (await rest(token, "GET", "/v1/me")).status === 200;
  const stateOf = async (id: string) => {
    const res = await asOwner("GET", `/v1/messages/${id}`);
    return res.status === 404 ? "gone" : (res.body.state as string);
  };
  const send = async (from: string, to: string, text: string) => {
    const sent = await rest(tokens[from] as string, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: to }, template: "note" }, payload: { text } });
    expect(sent.status).toBe(201);
    return sent.body.message_id as string;
  };
  /** `n` notes to `to`, dead-lettered (the workspace allows one delivery: a nacked message's next claim dead-letters it). */
  async function deadLetters(to: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await send("sender", to, `${to} ${i}`));
    const claimed = (await rest(tokens[to] as string, "POST", "/v1/messages/get-pending", { max: 10 })).body.items as Json[];
    for (const item of claimed) expect((await rest(tokens[to] as string, "POST", `/v1/messages/${item.envelope.message_id as string}/nack`, { lease_id: item.lease.lease_id })).status).toBe(200);
    expect((await rest(tokens[to] as string, "POST", "/v1/messages/get-pending", { max: 10 })).body.items).toEqual([]);
    expect(await Promise.all(ids.map(stateOf))).toEqual(ids.map(() => "dead_lettered"));
    return ids;
  }
  /** An OAuth client registered and approved for the owner's `sender` account: the grant's id and its access token. */
  async function connect(clientName: string): Promise<{ id: string; token: string }> {
    const reg = await fetch(`${served.baseUrl}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: clientName, redirect_uris: ["http://127.0.0.1/callback"] }) });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const client = await served.service.deps.stores.oauth.findClient({ clientId });
    const { code, verifier } = await approveForTest(served.service.deps, { client: client!, workspaceId: owner.workspaceId, aiAccountId: accounts.sender as string, redirectUri: REDIRECT });
    const res = await fetch(`${served.baseUrl}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier }).toString() });
    expect(res.status).toBe(200);
    const [grant] = await served.db.sql<{ id: string }[]>`SELECT id FROM oauth_grants WHERE client_id = ${clientId}`;
    return { id: grant?.id as string, token: ((await res.json()) as { access_token: string }).access_token };
  }

  beforeAll(async () => {
    served = await serveComposed({ loopbackWebhooks: true });
    // A webhook receiver on 127.0.0.1 that accepts everything (the verification probe included).
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    owner = await signUpForDashboard(served, { email: "owner@asks-first.test", password: "a long and quiet river", workspaceName: "Asks First Works", aiAccount: "sender" });
    closer = await signUpForDashboard(served, { email: "cleo@asks-first.test", password: "another long quiet river", workspaceName: "Closer Works", mfa: true });
    accounts.sender = owner.aiAccountId as string;
    for (const name of ["doomed", "keeper", "sink", "asker"]) accounts[name] = (await asOwner("POST", "/v1/ai-accounts", { friendly_name: name })).body.id as string;
    for (const name of ["sender", "doomed", "keeper", "sink", "asker"]) {
      const issued = await asOwner("POST", "/v1/credentials", { ai_account_id: accounts[name], tier: "operational", scopes: OPERATIONAL_SCOPES, name: `${name}-box` });
      expect(issued.status).toBe(201);
      tokens[name] = issued.body.token as string;
      credentials[name] = issued.body.credential.id as string;
    }
    // The asker's notes wait for a person's approval.
    expect((await asOwner("POST", "/v1/policies", { name: "asker-notes", body: "A person reads the asker's notes first.", kind: "approval", senders: ["asker"], templates: ["note"] })).status).toBe(201);
    await served.db.sql`UPDATE workspaces SET max_deliveries = 1 WHERE id = ${owner.workspaceId}`;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
    await signInOnPage(page, served.baseUrl, owner);
    bare = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await signInOnPage(bare, served.baseUrl, owner);
    stranger = await browser.newContext();
    await signInOnPage(await stranger.newPage(), served.baseUrl, closer);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((r) => (receiver === undefined ? r() : receiver.close(() => r())));
    await served?.close();
  });

  /**
   * The three proofs for one action posted to `action`, started on `from` by its link (an
   * `a[href^=action]`) or by `start`; `intact` is true while the action has not happened; `bareForm`
   * is what a bare POST carries besides (no confirmation field). With `strangerForm`, the person of
   * another workspace posts it confirmed first: 404 SVC_RESOURCE_NOT_FOUND.
   */
  async function asksFirst(p: { from: string; action: string; intact: () => Promise<boolean>; start?: (on: Page) => Promise<void>; bareForm?: Record<string, string>; strangerForm?: Record<string, string> }) {
    const question = (on: Page) => on.locator(`[data-confirm="${p.action}"]`);
    const begin = async (on: Page) => {
      expect((await on.goto(`${served.baseUrl}${p.from}`))?.status()).toBe(200);
      if (p.start === undefined) await on.locator(`a[href^="${p.action}"]`).first().click();
      else await p.start(on);
      await expect.poll(() => question(on).count()).toBe(1);
    };
    expect(await p.intact(), `${p.action}: intact before`).toBe(true);
    if (p.strangerForm !== undefined) {
      const posted = await stranger.request.post(`${served.baseUrl}${p.action}`, { form: { confirm: "yes", ...p.strangerForm }, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
      expect(posted.status(), `${p.action}: another workspace`).toBe(404);
      expect(await posted.text()).toContain('data-error-code="SVC_RESOURCE_NOT_FOUND"');
      expect(await p.intact(), `${p.action}: another workspace did not act`).toBe(true);
    }
    // (a) With JavaScript: a page of its own, clean; Cancel changes nothing.
    await begin(page);
    await expectCleanPage(page, problems);
    await question(page).locator("form a[href]").click();
    await expect.poll(() => question(page).count()).toBe(0);
    expect(await p.intact(), `${p.action}: the link or Cancel acted`).toBe(true);
    // (b) A bare POST gets the same question and acts on nothing.
    const posted = await bare.context().request.post(`${served.baseUrl}${p.action}`, { form: p.bareForm ?? {}, headers: { Origin: served.baseUrl } });
    expect(posted.status(), `${p.action}: a bare POST`).toBe(200);
    expect(await posted.text()).toContain(`data-confirm="${p.action}"`);
    expect(await p.intact(), `${p.action}: a bare POST acted`).toBe(true);
    // (c) Without JavaScript: the question, then its confirm button acts.
    await begin(bare);
    expect(await p.intact(), `${p.action}: the link acted without JavaScript`).toBe(true);
    await question(bare).locator("button[type=submit]").click();
    await expect.poll(p.intact, { timeout: 10_000 }).toBe(false);
    await expect.poll(() => question(bare).count()).toBe(0);
  }

  it("revoking an AI account", async () => {
    await asksFirst({ from: "/accounts", action: `/accounts/${accounts.doomed as string}/revoke`, intact: () => signedIn(tokens.doomed as string), strangerForm: {} });
  });

  it("revoking a credential", async () => {
    await asksFirst({ from: `/credentials?ai_account_id=${accounts.keeper as string}`, action: `/credentials/${credentials.keeper as string}/revoke`, intact: () => signedIn(tokens.keeper as string), strangerForm: {} });
  });

  it("purging a dead letter, from its page", async () => {
    const [id] = await deadLetters("sink", 1);
    await asksFirst({ from: `/messages/${id as string}`, action: `/dead-letters/${id as string}/purge`, intact: async () => (await stateOf(id as string)) === "dead_lettered", strangerForm: {} });
    expect(await stateOf(id as string)).toBe("gone");
  });

  it("releasing and purging the dead letters a filter selects (a bare POST is sent to the filter's question)", async () => {
    for (const [action, after] of [
      ["release", "pending"],
      ["purge", "gone"],
    ] as const) {
      const ids = await deadLetters("sink", 2);
      const still = async () => (await Promise.all(ids.map(stateOf))).every((s) => s === "dead_lettered");
      await asksFirst({ from: "/messages?state=dead_lettered&recipient=sink", action: `/dead-letters/${action}`, intact: still, bareForm: { message_id: ids[0] as string, back: "/messages?recipient=sink&state=dead_lettered" } });
      expect(await Promise.all(ids.map(stateOf))).toEqual([after, after]);
      // The pending ones the release left are claimed and acknowledged, out of the next round's way.
      for (const item of (await rest(tokens.sink as string, "POST", "/v1/messages/get-pending", { max: 10 })).body.items as Json[]) await rest(tokens.sink as string, "POST", `/v1/messages/${item.envelope.message_id as string}/ack`, { lease_id: item.lease.lease_id });
    }
  });

  it("deleting a webhook", async () => {
    const created = await asOwner("POST", "/v1/webhooks", { ai_account_id: accounts.sink, url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, name: "sink push" });
    expect(created.status).toBe(201);
    const id = created.body.webhook.id as string;
    const listed = async () => ((await asOwner("GET", "/v1/webhooks")).body.items as Json[]).some((w) => w.id === id);
    await asksFirst({ from: `/webhooks/${id}`, action: `/webhooks/${id}/delete`, intact: listed, strangerForm: {} });
  });

  it("disconnecting an OAuth connection; the workspace's other connection keeps working", async () => {
    const cursor = await connect("Cursor");
    const claude = await connect("Claude Code");
    await asksFirst({ from: "/connections", action: `/connections/${cursor.id}/disconnect`, intact: () => signedIn(cursor.token), strangerForm: {} });
    expect(await signedIn(claude.token)).toBe(true);
  });

  it("removing a person", async () => {
    const ivy = await seedPerson(served.service.deps, { workspaceId: owner.workspaceId, email: "ivy@asks-first.test", role: "admin", password: "a river that is long and quiet" });
    const listed = async () => ((await asOwner("GET", "/v1/people")).body.items as Json[]).some((x) => x.id === ivy.id);
    await asksFirst({ from: "/people", action: `/people/${ivy.id}/remove`, intact: listed, strangerForm: {} });
  });

  it("rejecting a held message: the reason typed is carried to the question and recorded", async () => {
    const id = await send("asker", "sink", "Drop the staging database?");
    expect(await stateOf(id)).toBe("held_for_approval");
    const start = async (on: Page) => {
      await on.locator("#reject-reason").fill("not without a backup");
      await on.locator(`form[action="/approvals/${id}/reject"] button[type=submit]`).click();
    };
    await asksFirst({ from: `/approvals/${id}`, action: `/approvals/${id}/reject`, start, intact: async () => (await stateOf(id)) === "held_for_approval", strangerForm: {} });
    const view = await asOwner("GET", `/v1/messages/${id}`);
    expect(view.body.state).toBe("rejected");
    expect(view.body.timeline.at(-1)).toMatchObject({ activity: "message.rejected", details: { reason: "not without a backup" } });
    // A reason over the operation's bound is refused before any question, as the operation would.
    const other = await send("asker", "sink", "And the backups?");
    const long = await bare.context().request.post(`${served.baseUrl}/approvals/${other}/reject`, { form: { reason: "x".repeat(1001) }, headers: { Origin: served.baseUrl } });
    expect(long.status()).toBe(400);
    expect(await long.text()).toContain('data-error-code="SVC_MALFORMED_REQUEST"');
    expect(await stateOf(other)).toBe("held_for_approval");
  });

  it("closing the workspace and erasing oneself: a POST without the typed confirmation is refused (400) and changes nothing", async () => {
    // The closer signed in with two-step verification: a fresh step-up, so only the confirmation is missing.
    for (const path of ["/settings/close", "/settings/erase"]) {
      const posted = await stranger.request.post(`${served.baseUrl}${path}`, { form: {}, headers: { Origin: served.baseUrl }, maxRedirects: 0 });
      expect(posted.status(), path).toBe(400);
      expect(await posted.text()).toContain('data-error-code="SVC_MALFORMED_REQUEST"');
    }
    expect((await served.db.sql<{ state: string }[]>`SELECT state FROM workspaces WHERE id = ${closer.workspaceId}`)[0]?.state).toBe("active");
    expect(await served.db.sql`SELECT 1 FROM persons WHERE email = ${closer.email}`).toHaveLength(1);
  });
});
