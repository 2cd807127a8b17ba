import { CHART_PLOT, chartPoints, expectCleanPage, launchChromium, watchPage, type PageProblems } from "@agentq/dashboard/testing";
import { freePort } from "@agentq/postgres";
import { testDatabaseUrl } from "@agentq/postgres/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signInOnPage, startMfaSetUpOnPage, submitMfaSetUpCode, wrongCodeFor } from "./dashboard/dashboard-people.ts";
import { bearerRest, type Json } from "./testing/bearer-rest.ts";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { REPO_ROOT, runPnpm, serverEnv, spawnServer, stopProcessGroup, type SpawnedServer } from "./testing/spawn-server.ts";

// Issue 30's "Done when", against the server a user starts (`pnpm start` from the repository's
// root, a fresh database) and set up the README's way (`pnpm -s bootstrap`, then REST), in real
// Chromium: a nacked, a lease-expired and a dead-lettered message each explain themselves on their
// page (the state line's code and every timeline entry's details); the charts draw an hour of the
// minute series; the Overview shows a send within 10 s with no navigation; revoking a credential,
// purging a dead letter and revoking an AI account each ask on a page of their own first (neither
// the link nor a bare POST acts); a wrong code during the two-step set-up keeps the secret, and the
// right code computed from it then turns it on. No response is a 5xx and no page logs an error.
// The in-process tests (dashboard/*.pg.test.ts) check the words; this one the codes.
const PASSWORD = "a quiet harbour at dawn 7";
const EMAIL = "ops@explained.test";
const README_SCOPES = {
  planner: ["send", "validate", "list_recipients", "list_templates", "get_template"],
  builder: ["get_pending", "ack", "nack"],
} as const;

describe("a dashboard that explains, served by `pnpm start`", () => {
  let db: ScratchDatabase;
  let sql: postgres.Sql;
  let server: SpawnedServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let rest: ReturnType<typeof bearerRest>;
  const serverFaults: string[] = [];
  const boot = { workspace_id: "", token: "" };
  const accounts = { planner: "", builder: "" };
  const tokens = { planner: "", builder: "" };
  const credentialIds = { planner: "", builder: "" };
  const ids = { dead: "", nacked: "", lapsed: "" };
  let lapsedUntil = 0;

  const ok = async (token: string, method: string, path: string, body?: unknown): Promise<Json> => {
    const r = await rest(token, method, path, body);
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body;
  };
  const send = async (text: string) => (await ok(tokens.planner, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "builder" }, template: "note" }, payload: { text } })).message_id as string;
  const claim = async (extra: Json = {}) => (await ok(tokens.builder, "POST", "/v1/messages/get-pending", { max: 1, ...extra })).items as Json[];

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    const env = serverEnv(db.url, { PORT: String(await freePort()) });
    // The README's order: `pnpm start &`, then `pnpm -s bootstrap ... --json` against the same
    // database (both migrate it under one advisory lock), while Chromium starts.
    const [started, booted, chromium] = await Promise.all([
      spawnServer(env, 90_000, { argv: ["pnpm", "start"], cwd: REPO_ROOT }),
      runPnpm(["-s", "bootstrap", "--workspace", "Explained Works", "--email", EMAIL, "--password", PASSWORD, "--json"], env),
      launchChromium(),
    ]);
    server = started;
    browser = chromium;
    expect(booted.code, booted.stderr).toBe(0);
    Object.assign(boot, JSON.parse(booted.stdout) as Json);
    rest = bearerRest(server.baseUrl);
    // One delivery per message (no command sets it; the workspace's limit, 10 by default, read with
    // the caller, so before any token of the workspace is used): a nacked message's next claim
    // dead-letters it.
    await sql`UPDATE workspaces SET max_deliveries = 1 WHERE id = ${boot.workspace_id}`;

    // Two AI accounts, the template they use, a credential each (the README's curl calls).
    for (const name of ["planner", "builder"] as const) accounts[name] = (await ok(boot.token, "POST", "/v1/ai-accounts", { friendly_name: name })).id as string;
    for (const name of ["planner", "builder"] as const) {
      const issued = await ok(boot.token, "POST", "/v1/credentials", { ai_account_id: accounts[name], tier: "operational", scopes: README_SCOPES[name], name: `${name}@explained` });
      tokens[name] = issued.token as string;
      credentialIds[name] = (issued.credential as Json).id as string;
    }
    await ok(tokens.planner, "GET", "/v1/templates/note");

    // Dead-lettered: nacked at its only delivery, dead-lettered by the next claim.
    ids.dead = await send("parse the report");
    const first = (await claim())[0] as Json;
    await ok(tokens.builder, "POST", `/v1/messages/${ids.dead}/nack`, { lease_id: first.lease.lease_id, reason: "schema mismatch" });
    expect(await claim()).toEqual([]);
    // Nacked, back in an hour.
    ids.nacked = await send("copy the logs");
    const second = (await claim())[0] as Json;
    await ok(tokens.builder, "POST", `/v1/messages/${ids.nacked}/nack`, { lease_id: second.lease.lease_id, reason: "disk full", redeliver_after: "PT1H" });
    // Lease-expired: claimed under the shortest lease and left to run out (no claim after this one).
    ids.lapsed = await send("index the wiki");
    const third = (await claim({ visibility_timeout: "PT10S" }))[0] as Json;
    expect(third.envelope.message_id).toBe(ids.lapsed);
    lapsedUntil = Date.parse(third.lease.lease_expires_at as string);

    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on("response", (r) => {
      if (r.status() >= 500) serverFaults.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    problems = watchPage(page);
    await signInOnPage(page, server.baseUrl, { email: EMAIL, password: PASSWORD, totp: null });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    if (server !== undefined) await stopProcessGroup(server);
    await sql?.end({ timeout: 5 });
    await db?.drop();
  });

  /** The state line's codes: the state, and why it stands there. */
  const stateOnPage = async () => {
    const line = page.locator("[data-state-line]");
    expect(((await line.textContent()) ?? "").trim().length, "the state line says it in words").toBeGreaterThan(20);
    return { state: await line.getAttribute("data-state-line"), why: await line.getAttribute("data-state-why") };
  };
  /** A timeline entry's details as the page lists them (name -> value), and whether it is summed up in words. */
  const entryOf = async (activity: string) => {
    const li = page.locator(`.timeline li[data-activity="${activity}"]`).last();
    const names = await li.locator("dl.facts dt").allTextContents();
    const values = await li.locator("dl.facts dd").allTextContents();
    return { summarised: (await li.locator(".entry-summary").count()) === 1, details: Object.fromEntries(names.map((n, i) => [n, values[i]])) as Record<string, string> };
  };
  /** Waits until the lapsed message's lease has run out. */
  const leaseRunOut = () => new Promise((r) => setTimeout(r, Math.max(0, lapsedUntil - Date.now() + 500)));
  const openMessage = async (id: string) => expect((await page.goto(`${server.baseUrl}/messages/${id}`))?.status()).toBe(200);

  it("a dead-lettered message says so, with its deliveries, the limit and the last nack's reason, and offers release and purge", async () => {
    await openMessage(ids.dead);
    expect(await stateOnPage()).toEqual({ state: "dead_lettered", why: "dead_lettered" });
    const nacked = await entryOf("message.nacked");
    expect(nacked).toEqual({ summarised: true, details: expect.objectContaining({ reason: "schema mismatch" }) });
    const dead = await entryOf("message.dead_lettered");
    expect(dead).toEqual({ summarised: true, details: expect.objectContaining({ delivery_count: "1", max_deliveries: "1" }) });
    expect((await entryOf("message.claimed")).details.lease_expires_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.locator(`form[action="/dead-letters/${ids.dead}/release"]`).count()).toBe(1);
    expect(await page.locator(`a[href="/dead-letters/${ids.dead}/purge"]`).count()).toBe(1);
    await expectCleanPage(page, problems);
  });

  it("a nacked message says it was declined, with the reason and when it comes back", async () => {
    await openMessage(ids.nacked);
    expect(await stateOnPage()).toEqual({ state: "pending", why: "nacked" });
    expect(await entryOf("message.nacked")).toEqual({ summarised: true, details: expect.objectContaining({ reason: "disk full", redeliver_after_ms: "3600000" }) });
    expect(await page.locator("form[action$='/release']").count()).toBe(0);
    await expectCleanPage(page, problems);
  });

  it("the charts draw an hour of the minute series, every line across the whole hour", async () => {
    // As the minute job writes them (workspaceMinuteStatsRecord): one row per whole minute of the
    // last hour by the database clock; the job itself rewrites only the last two minutes.
    await sql`
      INSERT INTO workspace_minute_stats (workspace_id, minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds)
      SELECT ${boot.workspace_id}, m, 3 + i % 4, 2 + i % 3, 1 + i % 2, 5 + i, 60 * i
      FROM generate_series(date_trunc('minute', now()) - interval '60 minutes', date_trunc('minute', now()) - interval '1 minute', interval '1 minute') WITH ORDINALITY AS g(m, i)
      ON CONFLICT (workspace_id, minute) DO UPDATE SET sent = excluded.sent, acknowledged = excluded.acknowledged, dead_lettered = excluded.dead_lettered, pending = excluded.pending, oldest_pending_age_seconds = excluded.oldest_pending_age_seconds`;
    expect((await page.goto(`${server.baseUrl}/?window=PT1H`))?.status()).toBe(200);
    for (const [chart, series] of [["chart-flow", "sent"], ["chart-flow", "acknowledged"], ["chart-flow", "dead-lettered"], ["chart-depth", "pending"], ["chart-age", "oldest"]] as const) {
      const points = await chartPoints(page, chart, series);
      expect(points, `${chart} ${series}`).toHaveLength(60);
      expect([points[0]?.x, points.at(-1)?.x], `${chart} ${series} spans the plot`).toEqual([CHART_PLOT.left, CHART_PLOT.right]);
      // From 60 minutes ago on, every seeded minute is above the baseline (the last few may be the
      // job's own reading, or fall past a minute's turn).
      const drawn = points.slice(0, 55).filter((p) => p.y < CHART_PLOT.baseline);
      expect(drawn.length, `${chart} ${series} draws the hour`).toBe(55);
    }
    expect(Number(await page.locator('.history tr[data-series="sent"] td[data-total]').textContent())).toBeGreaterThanOrEqual(55 * 3);
    await expectCleanPage(page, problems);
  });

  it("a message whose lease ran out says so, and is back in the queue (pending, not held)", async () => {
    await leaseRunOut();
    await openMessage(ids.lapsed);
    expect(await stateOnPage()).toEqual({ state: "pending", why: "lease_expired" });
    expect(await page.locator("[data-lease]").getAttribute("data-lease")).toBe("expired");
    expect((await entryOf("message.claimed")).details).toEqual(expect.objectContaining({ delivery_count: "1", lease_expires_at: new Date(lapsedUntil).toISOString() }));
    await expectCleanPage(page, problems);
  });

  it("the Overview shows a send within 10 s, with no navigation or reload", async () => {
    await leaseRunOut();
    expect((await page.goto(`${server.baseUrl}/`))?.status()).toBe(200);
    const pending = async () => Number(await page.locator("[data-count=pending]").textContent());
    await expect.poll(pending).toBe(2); // the nacked and the lapsed one; the dead letter is not pending.
    expect(await page.locator("[data-count=held]").textContent()).toBe("0");
    let navigations = 0;
    let loads = 0;
    // A navigation is a document request of the page (htmx's first swap stamps the history entry
    // in place with replaceState, a same-document change of nothing, so not "framenavigated").
    page.on("request", (r) => void (r.isNavigationRequest() && r.frame() === page.mainFrame() && navigations++));
    page.on("load", () => void loads++);
    await page.evaluate(() => ((globalThis as unknown as { sameDocument: boolean }).sameDocument = true));
    const sentAt = Date.now();
    await send("live one");
    await expect.poll(pending, { timeout: 10_000, interval: 250 }).toBe(3);
    expect(Date.now() - sentAt).toBeLessThan(10_000);
    expect({ navigations, loads, url: page.url() }).toEqual({ navigations: 0, loads: 0, url: `${server.baseUrl}/` });
    expect(await page.evaluate(() => (globalThis as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await expectCleanPage(page, problems);
  });

  /**
   * A destructive action asks first: its link opens a page of its own with the question, and a bare
   * POST (no confirmation) is answered with that question too; neither acts. The confirmation then
   * does, and `exists` turns false.
   */
  async function asksFirst(p: { from: string; action: string; exists: () => Promise<boolean> }) {
    expect((await page.goto(`${server.baseUrl}${p.from}`))?.status()).toBe(200);
    await page.locator(`a[href^="${p.action}"]`).first().click();
    const question = page.locator(`[data-confirm="${p.action}"]`);
    await expect.poll(() => question.count()).toBe(1);
    await expectCleanPage(page, problems);
    expect(await p.exists(), `${p.action}: the link did not act`).toBe(true);
    const bare = await context.request.post(`${server.baseUrl}${p.action}`, { form: {}, headers: { Origin: server.baseUrl }, maxRedirects: 0 });
    expect(bare.status()).toBe(200);
    expect(await bare.text()).toContain(`data-confirm="${p.action}"`);
    expect(await p.exists(), `${p.action}: a bare POST did not act`).toBe(true);
    await question.locator("button[type=submit]").click();
    await expect.poll(p.exists, { timeout: 10_000 }).toBe(false);
    await expect.poll(() => question.count()).toBe(0);
    await expectCleanPage(page, problems);
  }
  const signedIn = async (token: string) => (await rest(token, "GET", "/v1/me")).status === 200;

  it("revoking a credential, purging a dead letter and revoking an AI account each ask first, on a page of their own", async () => {
    await asksFirst({ from: `/credentials?ai_account_id=${accounts.planner}`, action: `/credentials/${credentialIds.planner}/revoke`, exists: () => signedIn(tokens.planner) });
    const deadLetter = async () => (await context.request.get(`${server.baseUrl}/v1/messages/${ids.dead}`)).status() === 200;
    expect(await deadLetter()).toBe(true);
    await asksFirst({ from: `/messages/${ids.dead}`, action: `/dead-letters/${ids.dead}/purge`, exists: deadLetter });
    await asksFirst({ from: "/accounts", action: `/accounts/${accounts.builder}/revoke`, exists: () => signedIn(tokens.builder) });
  });

  it("a wrong code during the two-step set-up keeps the secret; the right code from it turns two-step on", async () => {
    const { secret, totp } = await startMfaSetUpOnPage(page, server.baseUrl);
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await expectCleanPage(page, problems);
    await submitMfaSetUpCode(page, wrongCodeFor(totp));
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_UNAUTHENTICATED");
    expect(((await page.locator("#totp-secret").textContent()) ?? "").trim()).toBe(secret);
    expect(await page.locator("[data-qr]").count()).toBe(1);
    expect(problems.seen.filter((p) => !/status of 401/.test(p))).toEqual([]);
    problems.clear();
    await submitMfaSetUpCode(page, totp.generate());
    await page.locator("#recovery-codes").waitFor();
    expect(((await page.locator("#recovery-codes").textContent()) ?? "").trim().split("\n")).toHaveLength(10);
    // On: signing in now asks for a code, which the same authenticator gives.
    await signInOnPage(page, server.baseUrl, { email: EMAIL, password: PASSWORD, totp });
    await page.goto(`${server.baseUrl}/settings`);
    expect(await page.locator("[data-mfa]").getAttribute("data-mfa")).toBe("true");
    await expectCleanPage(page, problems);
  });

  it("answered no request with a 5xx, and logged no server fault", () => {
    expect(serverFaults).toEqual([]);
    expect(server.output()).not.toMatch(/"level":50/);
  });
});
