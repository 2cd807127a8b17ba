import { expectCleanPage, launchChromium, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mailsTo, nextMailTo, sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// Agent workflows in the dashboard, in real Chromium (DESIGN §2c): a send an approval policy holds
// waits (the owner is mailed over real SMTP, the navigation shows a badge), is invisible to
// get_pending, and is delivered after the owner approves it on its page; a rejected one is gone
// for good; a reply thread shows on the message's page. Every page visited has no console error
// and no serious axe violation.
type Json = Record<string, any>;

describe("dashboard: approvals and threads in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  const agents: Record<string, { id: string; token: string }> = {};
  let counter = 0;

  const asOwner = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${served.baseUrl}${path}`, { method, headers: sessionHeaders(served.baseUrl, owner.cookie, { "Idempotency-Key": `dash-${++counter}` }), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const asAgent = async (name: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${served.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${agents[name]?.token ?? ""}`, "Content-Type": "application/json", "Idempotency-Key": `dash-${++counter}` }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const note = (from: string, to: string, text: string, extra: Json = {}) => asAgent(from, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: to }, template: "note", ...extra }, payload: { text } });
  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);
  const badge = () => page.getByRole("navigation", { name: "Sections" }).locator("[data-count=approvals-waiting]");

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@approvals.test", password: "a long and patient river", workspaceName: "Approval Works" });
    for (const name of ["planner", "builder"]) {
      const account = await asOwner("POST", "/v1/ai-accounts", { friendly_name: name });
      const issued = await asOwner("POST", "/v1/credentials", { ai_account_id: account.body.id, tier: "operational", scopes: ["send", "get_pending", "ack"], name });
      expect(issued.status).toBe(201);
      agents[name] = { id: account.body.id as string, token: issued.body.token as string };
    }
    // The planner's notes wait for a person; its directives and the builder's notes do not.
    const policy = await asOwner("POST", "/v1/policies", { name: "planner-notes", body: "A person reads the planner's notes first.", kind: "approval", senders: ["planner"], templates: ["note"] });
    expect(policy.status).toBe(201);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
    await signInOnPage(page, served.baseUrl, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it("a held send waits: the owner is mailed, the badge counts it, the builder cannot claim it; approving it on its page delivers it", async () => {
    const mailsBefore = (await mailsTo(served.smtp, owner.email)).length;
    const held = await note("planner", "builder", "Ship the release notes?");
    expect(held.body.state).toBe("held_for_approval");
    const id = held.body.message_id as string;
    const mail = await nextMailTo(served.smtp, owner.email, mailsBefore);
    expect(mail.text).toContain(`${served.baseUrl}/approvals/${id}`);
    expect(mail.text).not.toContain("Ship the release notes?");
    expect((await asAgent("builder", "POST", "/v1/messages/get-pending", { wait: "PT1S" })).body.items).toEqual([]);

    await page.goto(`${served.baseUrl}/`);
    await expect.poll(() => badge().textContent()).toContain("1");
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: /Approvals/ }).click();
    await page.waitForURL(`${served.baseUrl}/approvals`);
    expect(await page.locator(`tr[data-approval="${id}"]`).textContent()).toContain("planner-notes");
    await checkPage("approvals");
    await page.locator(`tr[data-approval="${id}"] a`).click();
    await page.waitForURL(`${served.baseUrl}/approvals/${id}`);
    expect(await page.locator("[data-payload]").textContent()).toContain("Ship the release notes?");
    await checkPage("approval");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL(/\/approvals\?done=approved/);
    expect(await page.getByRole("status").first().textContent()).toContain("Approved");
    expect(await badge().count()).toBe(0);
    await checkPage();

    const claimed = await asAgent("builder", "POST", "/v1/messages/get-pending", {});
    expect(claimed.body.items.map((i: Json) => i.envelope.message_id)).toEqual([id]);
  });

  it("a rejected send is gone for good: never claimed, its page says so, its timeline has the reason; one mail a minute at most", async () => {
    const mailsBefore = (await mailsTo(served.smtp, owner.email)).length;
    const id = (await note("planner", "builder", "Delete the staging database")).body.message_id as string;
    await page.goto(`${served.baseUrl}/approvals/${id}`);
    await page.getByLabel("Reason for rejecting (optional)").fill("not without a backup");
    await page.getByRole("button", { name: "Reject" }).click();
    // It asks first, on a page of its own (every-destructive-action.pg.test.ts proves the rest).
    const question = page.locator(`[data-confirm="/approvals/${id}/reject"]`);
    await expect.poll(() => question.count()).toBe(1);
    expect((await asOwner("GET", `/v1/messages/${id}`)).body.state).toBe("held_for_approval");
    await question.locator("button[type=submit]").click();
    await page.waitForURL(/\/approvals\?done=rejected/);
    await checkPage();
    expect((await asAgent("builder", "POST", "/v1/messages/get-pending", {})).body.items).toEqual([]);
    const view = await asOwner("GET", `/v1/messages/${id}`);
    expect(view.body.state).toBe("rejected");
    expect(view.body.timeline.at(-1)).toMatchObject({ activity: "message.rejected", details: { reason: "not without a backup" } });
    await page.goto(`${served.baseUrl}/approvals/${id}`);
    expect(await page.getByRole("button", { name: "Approve" }).count()).toBe(0);
    // The first held send of this minute was mailed; this one was not.
    expect((await mailsTo(served.smtp, owner.email)).length).toBe(mailsBefore);
  });

  it("the message page shows its reply thread, oldest first, the message itself marked", async () => {
    const root = (await note("builder", "planner", "Which branch?")).body.message_id as string;
    const reply = await asAgent("planner", "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "builder" }, template: "directive", reply_to: root }, payload: { directive_kind: "answer", summary: "main", instructions: "Build from main." } });
    expect(reply.body).toMatchObject({ state: "pending", thread_id: root });
    await page.goto(`${served.baseUrl}/messages/${reply.body.message_id as string}`);
    const thread = page.getByRole("region", { name: "Thread" });
    const items = thread.locator("li[data-message]");
    expect(await items.count()).toBe(2);
    expect([await items.nth(0).getAttribute("data-message"), await items.nth(1).getAttribute("data-message")]).toEqual([root, reply.body.message_id]);
    expect(await thread.locator("[aria-current=true]").count()).toBe(1);
    await checkPage("message-thread");
    await thread.locator(`li[data-message="${root}"] a`).click();
    await page.waitForURL(`${served.baseUrl}/messages/${root}`);
    await checkPage();
  });

  it("a policy that asks for a step-up: the session without one is refused (401 SVC_STEP_UP_REQUIRED) and the page sends the person to the step-up", async () => {
    expect((await asOwner("POST", "/v1/policies", { name: "builder-notes", body: "Step up first.", kind: "approval", senders: ["builder"], templates: ["note"], require_step_up: true })).status).toBe(201);
    const id = (await note("builder", "planner", "Rotate the keys?")).body.message_id as string;
    const refused = await asOwner("POST", `/v1/messages/${id}/approve`, {});
    expect([refused.status, refused.body.error?.code]).toEqual([401, "SVC_STEP_UP_REQUIRED"]);
    await page.goto(`${served.baseUrl}/approvals/${id}`);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL(/\/settings\/step-up\?return_to=/);
    expect(new URL(page.url()).searchParams.get("return_to")).toBe(`/approvals/${id}`);
    expect((await asOwner("GET", `/v1/messages/${id}`)).body.state).toBe("held_for_approval");
  });
});
