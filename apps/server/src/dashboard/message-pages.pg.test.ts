import { OPERATIONAL_SCOPES } from "@agentq/core";
import { expectCleanPage, launchChromium, type PageProblems, seriousAxeViolations, watchPage } from "@agentq/dashboard/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedPerson, sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// A message's page in real Chromium explains where it stands: a nacked, a lease-expired, an
// acknowledged and a dead-lettered message each say why in one line, every timeline entry shows
// its details (the nack's reason, the claim's lease expiry, the outcome, the dead-letter limit),
// the lease shows with its expiry, and a message whose lease ran out is pending (not held), on
// its page and in the Overview's counts. Owners and admins read the payload (each read an audit
// row); a viewer sees its size only and is refused the read; another workspace gets 404.
type Json = Record<string, any>;

describe("dashboard: a message explains itself in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;
  let planner = "";
  let worker = "";
  const ids = { nacked: "", lapsed: "", dead: "", acked: "" };

  async function rest(token: string, method: string, path: string, body?: unknown): Promise<Json> {
    const res = await fetch(`${served.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    expect(res.status, `${method} ${path}: ${res.status}`).toBeLessThan(300);
    return (await res.json()) as Json;
  }
  const send = async (text: string, correlation: string) => (await rest(planner, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "worker" }, template: "note", correlation_id: correlation }, payload: { text } })).message_id as string;
  const claimOne = async () => ((await rest(worker, "POST", "/v1/messages/get-pending", { max: 1 })).items as Json[])[0] as Json;

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@stuck.test", password: "a long and quiet river", workspaceName: "Stuck Works", aiAccount: "planner" });
    other = await signUpForDashboard(served, { email: "bea@stuck.test", password: "another long quiet river", workspaceName: "Other Works" });
    const post = (path: string, body: unknown) => fetch(`${served.baseUrl}${path}`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: JSON.stringify(body) });
    const workerId = ((await (await post("/v1/ai-accounts", { friendly_name: "worker" })).json()) as Json).id as string;
    const issue = async (accountId: string, name: string) => ((await (await post("/v1/credentials", { ai_account_id: accountId, tier: "operational", scopes: OPERATIONAL_SCOPES, name })).json()) as Json).token as string;
    planner = await issue(owner.aiAccountId as string, "planner-box");
    worker = await issue(workerId, "worker-box");
    // One delivery per message: a nacked message's next claim dead-letters it.
    await served.db.sql`UPDATE workspaces SET max_deliveries = 1 WHERE id = ${owner.workspaceId}`;

    ids.dead = await send("parse the report", "job-1");
    const first = await claimOne();
    await rest(worker, "POST", `/v1/messages/${ids.dead}/nack`, { lease_id: first.lease.lease_id, reason: "schema mismatch" });
    expect((await rest(worker, "POST", "/v1/messages/get-pending", { max: 5 })).items).toEqual([]);

    ids.nacked = await send("copy the logs", "job-2");
    const second = await claimOne();
    await rest(worker, "POST", `/v1/messages/${ids.nacked}/nack`, { lease_id: second.lease.lease_id, reason: "disk full", redeliver_after: "PT1H" });

    ids.acked = await send("say hello", "job-3");
    const third = await claimOne();
    await rest(worker, "POST", `/v1/messages/${ids.acked}/ack`, { lease_id: third.lease.lease_id, outcome_summary: "said hello twice" });

    ids.lapsed = await send("index the wiki", "job-4");
    expect((await claimOne()).envelope.message_id).toBe(ids.lapsed);
    // Its lease ran out three minutes ago (the worker went away): claimable again, no write needed.
    await served.db.sql`UPDATE messages SET visible_at = now() - interval '3 minutes 5 seconds', lease_claimed_at = now() - interval '5 minutes' WHERE id = ${ids.lapsed}`;

    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    problems = watchPage(page);
    await signInOnPage(page, served.baseUrl, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);
  const stateLine = () => page.locator("[data-state-line]").textContent();
  const entry = (activity: string) => page.locator(`.timeline li[data-activity="${activity}"]`);

  it("a dead letter says it was dead-lettered after its deliveries, with the last nack's reason, and offers release and purge", async () => {
    await page.goto(`${served.baseUrl}/messages/${ids.dead}`);
    expect(await stateLine()).toContain("Dead-lettered after 1 delivery");
    expect(await stateLine()).toContain('"schema mismatch"');
    expect(await entry("message.nacked").locator(".entry-summary").textContent()).toContain('Reason: "schema mismatch"');
    expect(await entry("message.dead_lettered").locator(".entry-summary").textContent()).toContain("the limit is 1");
    expect(await entry("message.claimed").locator(".entry-summary").textContent()).toMatch(/Delivery 1; lease until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(await entry("message.claimed").textContent()).toContain("by worker");
    expect(await page.locator("[data-correlation]").textContent()).toBe("job-1");
    expect(await page.getByRole("button", { name: "Release" }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "Purge" }).count()).toBe(1);
    await checkPage("message");
  });

  it("a nacked message says it was declined and why; an acknowledged one shows its outcome", async () => {
    await page.goto(`${served.baseUrl}/messages/${ids.nacked}`);
    expect(await page.locator("[data-state-line]").getAttribute("data-state-line")).toBe("pending");
    expect(await stateLine()).toContain('Declined (nacked)');
    expect(await stateLine()).toContain('"disk full"');
    expect(await entry("message.nacked").locator(".entry-summary").textContent()).toContain("back in the queue after 1 h");
    expect(await page.getByRole("button", { name: "Release" }).count()).toBe(0);
    await checkPage();
    await page.goto(`${served.baseUrl}/messages/${ids.acked}`);
    expect(await stateLine()).toContain('Acknowledged by worker');
    expect(await stateLine()).toContain('"said hello twice"');
    await checkPage();
  });

  it("a message whose lease ran out is back in the queue, not held: on its page, in the list and in the Overview's counts", async () => {
    await page.goto(`${served.baseUrl}/messages/${ids.lapsed}`);
    expect(await page.locator("[data-state-line]").getAttribute("data-state-line")).toBe("pending");
    expect(await stateLine()).toContain("Lease expired 3 min ago, back in the queue");
    expect(await page.locator("[data-lease]").getAttribute("data-lease")).toBe("expired");
    expect(await page.locator("[data-lease]").textContent()).toContain("ran out");
    await checkPage();
    await page.goto(`${served.baseUrl}/messages?state=held`);
    expect(await page.locator("tr[data-message]").count()).toBe(0);
    await page.goto(`${served.baseUrl}/`);
    expect(await page.locator("[data-count=held]").textContent()).toBe("0");
    expect(await page.locator("[data-count=pending]").textContent()).toBe("2");
    const rest = await fetch(`${served.baseUrl}/v1/message-counts`, { headers: sessionHeaders(served.baseUrl, owner.cookie) });
    expect(((await rest.json()) as Json).recipients).toEqual([expect.objectContaining({ friendly_name: "worker", pending: 2, held: 0 })]);
  });

  it("an owner reads the payload, and each read is an audit row on the message's timeline", async () => {
    await page.goto(`${served.baseUrl}/messages/${ids.nacked}`);
    const bytes = Number(await page.locator("[data-payload-bytes]").getAttribute("data-payload-bytes"));
    expect(bytes).toBe(JSON.stringify({ text: "copy the logs" }).length);
    await page.getByRole("link", { name: "Show the payload" }).click();
    await page.waitForURL(`${served.baseUrl}/messages/${ids.nacked}/payload`);
    expect(JSON.parse((await page.locator("[data-payload]").textContent()) ?? "")).toEqual({ text: "copy the logs" });
    await checkPage();
    await page.getByRole("link", { name: "The message" }).click();
    await page.waitForURL(`${served.baseUrl}/messages/${ids.nacked}`);
    expect(await entry("message.payload_viewed").count()).toBe(1);
  });

  it("the list shows ids and correlation ids, finds a message by either, and Back undoes a filter in one press", async () => {
    await page.goto(`${served.baseUrl}/messages`);
    expect(await page.locator("tr[data-message]").count()).toBe(4);
    const row = page.locator(`tr[data-message="${ids.nacked}"]`);
    expect(await row.locator("[data-correlation]").textContent()).toBe("job-2");
    expect(await row.getByRole("link", { name: ids.nacked }).count()).toBe(1);
    await checkPage(); // the docs' messages.png comes from manage-workspace.pg.test.ts
    await page.getByLabel("Message id or correlation id").fill("job-4");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/search=job-4/);
    await expect.poll(() => page.locator("tr[data-message]").count()).toBe(1);
    expect(await page.locator(`tr[data-message="${ids.lapsed}"]`).count()).toBe(1);
    await page.getByLabel("Message id or correlation id").fill(ids.dead);
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(new RegExp(`search=${ids.dead}`));
    await expect.poll(() => page.locator(`tr[data-message="${ids.dead}"]`).count()).toBe(1);
    await page.getByLabel("State").selectOption("held");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/state=held/);
    await expect.poll(() => page.locator("[data-empty]").count()).toBe(1);
    // One press of Back per search, each restoring the list it showed.
    await page.goBack();
    await expect.poll(() => page.url()).toMatch(new RegExp(`search=${ids.dead}&state=&`));
    await expect.poll(() => page.locator("tr[data-message]").count()).toBe(1);
    await page.goBack();
    await expect.poll(() => page.url()).toMatch(/search=job-4&state=&/);
    await expect.poll(() => page.locator(`tr[data-message="${ids.lapsed}"]`).count()).toBe(1);
    await page.goBack();
    await expect.poll(() => page.url()).toBe(`${served.baseUrl}/messages`);
    await expect.poll(() => page.locator("tr[data-message]").count()).toBe(4);
    expect(await page.getByLabel("Message id or correlation id").inputValue()).toBe("");
    await checkPage();
  });

  it("pages first, previous and next through a long list, keeping the filter", async () => {
    for (let i = 0; i < 101; i++) await send(`bulk ${i}`, "bulk");
    await page.goto(`${served.baseUrl}/messages?search=bulk`);
    const firstIds = await page.locator("tr[data-message]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-message")));
    expect(firstIds).toHaveLength(50);
    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => page.url()).toContain("cursor=");
    const secondIds = await page.locator("tr[data-message]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-message")));
    expect(secondIds).toHaveLength(50);
    expect(secondIds.some((id) => firstIds.includes(id))).toBe(false);
    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => page.locator("tr[data-message]").count()).toBe(1);
    expect(await page.getByText("Last page").count()).toBe(1);
    await checkPage();
    await page.getByRole("link", { name: "Previous page" }).click();
    await expect.poll(() => page.locator("tr[data-message]").first().getAttribute("data-message")).toBe(secondIds[0]);
    expect(page.url()).toContain("search=bulk");
    await page.getByRole("link", { name: "Previous page" }).click();
    await expect.poll(() => page.locator("tr[data-message]").first().getAttribute("data-message")).toBe(firstIds[0]);
    expect(await page.getByRole("link", { name: "Previous page" }).count()).toBe(0);
    await page.getByRole("link", { name: "Next page" }).click();
    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => page.locator("tr[data-message]").count()).toBe(1);
    await page.getByRole("link", { name: "First page" }).click();
    await expect.poll(() => page.locator("tr[data-message]").first().getAttribute("data-message")).toBe(firstIds[0]);
    expect(page.url()).toBe(`${served.baseUrl}/messages?search=bulk`);
    await checkPage();
  });

  it("the audit log names who and what, links them, and filters by part of an activity", async () => {
    await page.goto(`${served.baseUrl}/audit`);
    await page.getByLabel("Activity contains").fill("payload");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.url()).toContain("activity_contains=payload");
    await expect.poll(() => page.locator("tr[data-activity]").count()).toBe(1);
    const row = page.locator("tr[data-activity='message.payload_viewed']");
    expect(await row.locator("[data-actor-person]").textContent()).toBe("owner@stuck.test");
    expect(await row.getByRole("link", { name: ids.nacked }).getAttribute("href")).toBe(`/messages/${ids.nacked}`);
    await page.goto(`${served.baseUrl}/audit?activity_contains=credential.`);
    const issued = page.locator("tr[data-activity='credential.issued']");
    expect(await issued.count()).toBe(2);
    expect(await issued.allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining("credential worker-box")]));
    expect(await page.content()).not.toMatch(/AI account 0[0-9A-Z]{25}/);
    await checkPage("audit-log-filtered");
  });

  it("says an error in a plain sentence with its details (the webhook's verification failure), the code after", async () => {
    await page.goto(`${served.baseUrl}/webhooks`);
    await page.getByLabel("Name").fill("local hook");
    await page.getByLabel("URL").fill("http://127.0.0.1:9/hook");
    await page.getByRole("button", { name: "Add the webhook" }).click();
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_MALFORMED_REQUEST");
    const notice = page.locator("[data-error-code]");
    expect(await notice.locator("strong").first().textContent()).toBe("Something in the form was not accepted.");
    expect(await notice.locator(".error-details").textContent()).toMatch(/Why the verification failed.*\((destination_not_public|invalid_url)\)/);
    expect(await notice.locator(".error-code").textContent()).toBe("SVC_MALFORMED_REQUEST");
    expect(await seriousAxeViolations(page)).toEqual([]);
    problems.clear();
    // A value outside the accepted set says which field, in words.
    await page.goto(`${served.baseUrl}/messages?state=stuck`);
    expect(await page.locator("[data-error-code] .problems").textContent()).toContain("state: is not one of the accepted values");
    expect(await page.content()).not.toContain("Expected union value");
    problems.clear();
  });

  it("the Overview updates itself within 10 s of a send, without a reload; paused by its button or while the tab is hidden", async () => {
    await page.goto(`${served.baseUrl}/`);
    await page.setViewportSize({ width: 1280, height: 400 });
    await page.evaluate(() => (globalThis as unknown as { scrollTo: (x: number, y: number) => void }).scrollTo(0, 150));
    const scrolled = await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY);
    await page.evaluate(() => ((globalThis as unknown as { sameDocument: boolean }).sameDocument = true));
    const pending = async () => Number(await page.locator("[data-count=pending]").textContent());
    const before = await pending();
    const started = Date.now();
    await send("live one", "live-1");
    await expect.poll(pending, { timeout: 10_000, interval: 250 }).toBe(before + 1);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Not a reload: the same document, the same scroll.
    expect(await page.evaluate(() => (globalThis as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.evaluate(() => (globalThis as unknown as { scrollY: number }).scrollY)).toBe(scrolled);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole("button", { name: "Pause live updates" }).click();
    expect(await page.getByRole("button", { name: "Resume live updates" }).getAttribute("aria-pressed")).toBe("true");
    await send("live two", "live-2");
    await page.waitForTimeout(7_000);
    expect(await pending()).toBe(before + 1);
    // Hidden tab: still no update after resuming.
    await page.evaluate(() => Object.defineProperty((globalThis as unknown as { document: object }).document, "hidden", { configurable: true, get: () => true }));
    await page.getByRole("button", { name: "Resume live updates" }).click();
    await page.waitForTimeout(7_000);
    expect(await pending()).toBe(before + 1);
    await page.evaluate(() => Object.defineProperty((globalThis as unknown as { document: object }).document, "hidden", { configurable: true, get: () => false }));
    await expect.poll(pending, { timeout: 10_000, interval: 250 }).toBe(before + 2);
    expect(await page.evaluate(() => (globalThis as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await checkPage("overview-live");
  });

  it("a viewer sees the payload's size only and is refused its read (403); another workspace gets 404", async () => {
    await seedPerson(served.service.deps, { workspaceId: owner.workspaceId, email: "vic@stuck.test", role: "viewer", password: "a viewer's long password" });
    const viewerPage = await context.browser()!.newContext().then((ctx) => ctx.newPage());
    const viewerProblems = watchPage(viewerPage);
    await signInOnPage(viewerPage, served.baseUrl, { ...owner, email: "vic@stuck.test", password: "a viewer's long password", totp: null });
    await viewerPage.goto(`${served.baseUrl}/messages/${ids.nacked}`);
    expect(await viewerPage.locator("[data-payload-bytes]").textContent()).toContain("owners and admins can read it");
    expect(await viewerPage.getByRole("link", { name: "Show the payload" }).count()).toBe(0);
    await expectCleanPage(viewerPage, viewerProblems);
    const refused = await viewerPage.goto(`${served.baseUrl}/messages/${ids.nacked}/payload`);
    expect(refused?.status()).toBe(403);
    expect(await viewerPage.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_TIER_INSUFFICIENT");
    await viewerPage.context().close();

    for (const path of [`/messages/${ids.nacked}`, `/messages/${ids.nacked}/payload`]) {
      const res = await fetch(`${served.baseUrl}${path}`, { headers: { ...sessionHeaders(served.baseUrl, other.cookie), Accept: "text/html" } });
      expect(res.status, path).toBe(404);
      expect(await res.text()).not.toContain("copy the logs");
    }
  });
});
