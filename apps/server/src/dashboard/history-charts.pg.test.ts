import { OPERATIONAL_SCOPES, recordMinuteStats } from "@agentq/core";
import { CHART_PLOT, chartPoints, expectCleanPage, launchChromium, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// Issue 30's history in real Chromium: the Overview draws the workspace's minute series
// (get_workspace_stats, recorded by the background writer's pass) as SVG charts of sent,
// acknowledged and dead-lettered per minute, pending depth and the oldest waiting age, with the
// same figures in a table; a GET form switches between the last hour and the last day (also in
// a browser running no JavaScript); an AI account's page charts that account as recipient (its own
// minute series, from the same pass) beside what waits for it now. Another workspace's traffic
// never shows.
type Json = Record<string, any>;

describe("dashboard: the history charts in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let bare: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;
  let workerId = "";

  async function rest(token: string, method: string, path: string, body?: unknown): Promise<Json> {
    const res = await fetch(`${served.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect(res.status, `${method} ${path}: ${res.status}`).toBeLessThan(300);
    return (await res.json()) as Json;
  }
  async function credentialsOf(person: DashboardPerson, accountId: string, name: string): Promise<string> {
    const res = await fetch(`${served.baseUrl}/v1/credentials`, { method: "POST", headers: sessionHeaders(served.baseUrl, person.cookie), body: JSON.stringify({ ai_account_id: accountId, tier: "operational", scopes: OPERATIONAL_SCOPES, name }) });
    return ((await res.json()) as Json).token as string;
  }
  const sendTo = (token: string, recipient: string) => rest(token, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: recipient }, template: "note" }, payload: { text: "t" } });
  const claimOne = async (token: string) => ((await rest(token, "POST", "/v1/messages/get-pending", { max: 1 })).items as Json[])[0] as Json;

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@charts.test", password: "a long and quiet river", workspaceName: "Chart Works", aiAccount: "planner" });
    other = await signUpForDashboard(served, { email: "bea@charts.test", password: "another long quiet river", workspaceName: "Other Works", aiAccount: "elsewhere" });
    const created = await fetch(`${served.baseUrl}/v1/ai-accounts`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: JSON.stringify({ friendly_name: "worker" }) });
    workerId = ((await created.json()) as Json).id as string;
    const planner = await credentialsOf(owner, owner.aiAccountId as string, "planner-box");
    const worker = await credentialsOf(owner, workerId, "worker-box");
    await served.db.sql`UPDATE workspaces SET max_deliveries = 1 WHERE id = ${owner.workspaceId}`;

    // One dead letter (nacked at its only delivery), then four sends of which one is acknowledged.
    await sendTo(planner, "worker");
    const doomed = await claimOne(worker);
    await rest(worker, "POST", `/v1/messages/${doomed.envelope.message_id}/nack`, { lease_id: doomed.lease.lease_id, reason: "no" });
    expect((await rest(worker, "POST", "/v1/messages/get-pending", { max: 5 })).items).toEqual([]);
    for (let i = 0; i < 4; i++) await sendTo(planner, "worker");
    const done = await claimOne(worker);
    await rest(worker, "POST", `/v1/messages/${done.envelope.message_id}/ack`, { lease_id: done.lease.lease_id });
    // The other workspace sends seven to itself.
    const elsewhere = await credentialsOf(other, other.aiAccountId as string, "elsewhere-box");
    for (let i = 0; i < 7; i++) await sendTo(elsewhere, "elsewhere");

    // The database clock cannot move: the activity moves a minute and a half into the past instead,
    // into a whole minute the background writer's pass records (as workspace-stats.pg.test.ts does).
    await served.db.sql`update audit_log set occurred_at = occurred_at - interval '90 seconds'`;
    await served.db.sql`update messages set accepted_at = accepted_at - interval '90 seconds'`;
    await served.db.sql`update audit_unsealed set occurred_at = occurred_at - interval '90 seconds'`;
    expect(await recordMinuteStats(served.service.deps)).toBeGreaterThan(0);

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
  const figure = (p: Page, series: string, column: number) => p.locator(`.history tr[data-series="${series}"] td`).nth(column).textContent();
  /** The y coordinates of a chart line's points (the baseline is CHART_PLOT.baseline). */
  const heights = async (p: Page, chart: string, series: string) => (await chartPoints(p, chart, series)).map((pt) => pt.y);

  it("the Overview charts the last hour of sends, acks, dead letters, depth and the oldest's age from the minute series", async () => {
    await page.goto(`${served.baseUrl}/`);
    expect(await page.locator("#history-window").inputValue()).toBe("PT1H");
    expect(await page.locator(".history svg.chart").count()).toBe(3);
    for (const [chart, series] of [["chart-flow", "sent"], ["chart-flow", "acknowledged"], ["chart-flow", "dead-lettered"], ["chart-depth", "pending"], ["chart-age", "oldest"]] as const) {
      const ys = await heights(page, chart, series);
      expect(ys, `${chart} ${series}`).toHaveLength(60);
      expect(Math.min(...ys), `${chart} ${series} is not flat`).toBeLessThan(CHART_PLOT.baseline);
    }
    expect(await figure(page, "sent", 0)).toBe("5");
    expect(await figure(page, "acknowledged", 0)).toBe("1");
    expect(await figure(page, "dead-lettered", 0)).toBe("1");
    expect(await figure(page, "pending", 1)).toBe("3");
    expect(await figure(page, "oldest", 1)).toMatch(/^\d+(\.\d)? min$/);
    // The SVG is named and described for a screen reader.
    const flow = page.getByRole("img", { name: "Messages per minute" });
    expect(await flow.count()).toBe(1);
    expect(await page.locator("#chart-flow-desc").textContent()).toContain("5 sent, 1 acknowledged, 1 dead-lettered");
    await checkPage("overview-history");
  });

  it("switching the window to the last day redraws the day, with the same traffic, and back", async () => {
    await page.goto(`${served.baseUrl}/`);
    await page.getByLabel("Window").selectOption("P1D");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/window=P1D/);
    expect(await page.locator("#history-window").inputValue()).toBe("P1D");
    expect(await heights(page, "chart-flow", "sent")).toHaveLength(1440);
    expect(await figure(page, "sent", 0)).toBe("5");
    expect(await page.locator('svg[data-chart="chart-flow"] text').allTextContents()).toContain("24 h ago");
    await checkPage();
    await page.getByLabel("Window").selectOption("PT1H");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(/window=PT1H/);
    expect(await heights(page, "chart-flow", "sent")).toHaveLength(60);
    await checkPage();
  });

  it("the window switch is a plain GET form that works without JavaScript; an unknown window reads as the hour", async () => {
    await bare.goto(`${served.baseUrl}/`);
    await bare.getByLabel("Window").selectOption("P1D");
    await bare.getByRole("button", { name: "Show" }).click();
    await bare.waitForURL(/window=P1D/);
    expect(await heights(bare, "chart-depth", "pending")).toHaveLength(1440);
    await bare.goto(`${served.baseUrl}/?window=P9999D`);
    expect(await bare.locator("#history-window").inputValue()).toBe("PT1H");
    expect(await heights(bare, "chart-depth", "pending")).toHaveLength(60);
  });

  it("an AI account's page charts that account as recipient: the worker got all of it, the planner none", async () => {
    await page.goto(`${served.baseUrl}/accounts/${workerId}`);
    expect(await page.locator("[data-history-note]").textContent()).toContain("worker as recipient");
    expect(await page.locator("[data-waiting]").textContent()).toBe("3 pending, 0 held");
    expect(await figure(page, "sent", 0)).toBe("5");
    expect(await figure(page, "acknowledged", 0)).toBe("1");
    expect(await figure(page, "dead-lettered", 0)).toBe("1");
    expect(await figure(page, "pending", 1)).toBe("3");
    expect(Math.min(...(await heights(page, "chart-flow", "sent")))).toBeLessThan(CHART_PLOT.baseline);
    await page.getByLabel("Window").selectOption("P1D");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL(`${served.baseUrl}/accounts/${workerId}?window=P1D`);
    expect(await heights(page, "chart-flow", "acknowledged")).toHaveLength(1440);
    expect(await figure(page, "sent", 0)).toBe("5");
    await checkPage("account-history");
    // The planner sent everything and received nothing: its charts are flat, though the workspace's are not.
    await page.goto(`${served.baseUrl}/accounts/${owner.aiAccountId as string}`);
    for (const [series, column] of [["sent", 0], ["acknowledged", 0], ["dead-lettered", 0], ["pending", 1]] as const) expect(await figure(page, series, column), series).toBe("0");
    expect(Math.min(...(await heights(page, "chart-flow", "sent")))).toBe(CHART_PLOT.baseline);
    await checkPage();
  });

  it("an account's series is read in its own workspace only: another workspace's person gets 404 for it", async () => {
    const res = await fetch(`${served.baseUrl}/v1/workspaces/me/stats?ai_account_id=${workerId}`, { headers: { Cookie: other.cookie } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error.code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await fetch(`${served.baseUrl}/accounts/${workerId}`, { headers: { Cookie: other.cookie } })).status).toBe(404);
    // Its own account's series holds only its own seven sends.
    const own = (await (await fetch(`${served.baseUrl}/v1/workspaces/me/stats?ai_account_id=${other.aiAccountId as string}`, { headers: { Cookie: other.cookie } })).json()) as Json;
    expect(own.ai_account_id).toBe(other.aiAccountId);
    expect((own.minutes as Json[]).reduce((n, m) => n + (m.sent as number), 0)).toBe(7);
  });

  it("the Overview's live polls (its live region as the htmx target) skip the history; the page itself has it", async () => {
    const overview = (headers: Record<string, string>) => fetch(`${served.baseUrl}/`, { headers: { Cookie: owner.cookie, ...headers } }).then((r) => r.text());
    const poll = await overview({ "HX-Request": "true", "HX-Target": "live-overview" });
    expect(poll).toContain('id="live-overview"');
    expect(poll).not.toContain('class="history"');
    expect(await overview({ "HX-Request": "true", "HX-Target": "frame" })).toContain('class="history"');
  });

  it("another workspace's overview charts its own traffic only", async () => {
    const html = await (await fetch(`${served.baseUrl}/`, { headers: { Cookie: other.cookie } })).text();
    expect(html).toMatch(/<tr data-series="sent"><th scope="row">Sent<\/th><td class="num" data-total="">7<\/td>/);
    expect(html).toMatch(/<tr data-series="acknowledged"><th scope="row">Acknowledged<\/th><td class="num" data-total="">0<\/td>/);
  });
});
