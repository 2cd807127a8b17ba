import { expectCleanPage, launchChromium, overflowsSideways, type PageProblems, saveDocScreenshot, seriousAxeViolations, watchPage } from "@agentq/dashboard/testing";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import * as OTPAuth from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextMailTo } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";

// A person's day in the dashboard, in real Chromium under the CSP: sign up (and confirm the
// address from the mailed link, received over real SMTP), create an AI
// account, issue it a credential (the token shown once, copied with the button) and use it over
// REST, freeze the account and see the credential refused with 403 SVC_FROZEN, verify the audit
// chain; every page visited has no console error and no serious axe violation.
describe("dashboard: managing a workspace in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let token = "";
  let receiver: Server;
  let receiverUrl = "";
  let received = 0;

  const email = "owner@dash.test";
  const password = "correct horse battery staple 42";

  beforeAll(async () => {
    served = await serveComposed({ background: true, loopbackWebhooks: true });
    // A webhook receiver on 127.0.0.1 that accepts everything (the verification probe included).
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received += 1;
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    browser = await launchChromium();
    // Tokyo: the page's times must show in the viewer's zone, not the server's UTC.
    context = await browser.newContext({ timezoneId: "Asia/Tokyo", viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: served.baseUrl });
    page = await context.newPage();
    problems = watchPage(page);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await new Promise<void>((r) => (receiver === undefined ? r() : receiver.close(() => r())));
  });

  /** Runs the page's axe scan and console check; saves the docs screenshot under `shot` when asked. */
  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);

  const rest = (path: string, init: RequestInit = {}) => fetch(`${served.baseUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...init.headers } });

  it("signs up, is told to check the mail, opens the mailed link, confirms, and lands signed in on the overview, which shows the empty workspace", async () => {
    await page.goto(`${served.baseUrl}/sign-up`);
    await page.getByLabel("Workspace name").fill("Dash Works");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create the workspace" }).click();
    await expect.poll(() => page.locator("[data-sign-up=sent]").count()).toBe(1);
    expect((await context.cookies()).some((c) => c.name.endsWith("agentq_session"))).toBe(false);
    await checkPage(); // its screenshot comes from `pnpm start` (newcomer.process.test.ts)
    const link = /http:\/\/127\.0\.0\.1:\d+\/verify-email#token=agq_ev_[A-Za-z0-9_-]{43}/.exec((await nextMailTo(served.smtp, email, 0)).text)?.[0] ?? "";
    expect(link.startsWith(`${served.baseUrl}/verify-email#token=`)).toBe(true);
    await page.goto(link);
    // The page's script moved the token from the fragment into the form and out of the address bar.
    await expect.poll(() => page.getByLabel("Code from the link").inputValue()).toBe(link.split("#token=")[1]);
    expect(page.url()).toBe(`${served.baseUrl}/verify-email`);
    await checkPage();
    await page.getByRole("button", { name: "Confirm and sign in" }).click();
    await page.waitForURL(`${served.baseUrl}/`);
    // One delivery per message (before any credential is used, so no process holds an older
    // copy): a nacked message's next claim dead-letters it.
    await served.db.sql`UPDATE workspaces SET max_deliveries = 1`;
    await expect.poll(() => page.locator("h1").textContent()).toBe("Dash Works");
    expect(await page.locator("[data-count=pending]").textContent()).toBe("0");
    expect(await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Overview" }).getAttribute("aria-current")).toBe("page");
    await checkPage();
  });

  it("creates an AI account, issues it a credential shown once with its MCP configuration, and the copied token works over REST", async () => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "AI accounts" }).click();
    await page.waitForURL(`${served.baseUrl}/accounts`);
    await checkPage();
    await page.getByLabel("New AI account").fill("worker-1");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("worker-1");
    expect(await page.getByRole("status").first().textContent()).toContain("created");
    await checkPage();

    await page.getByRole("link", { name: "Issue a credential" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Issue a credential");
    await checkPage("issue-credential");
    await page.getByLabel("Name").fill("worker on box-1");
    for (const scope of ["manage_projects", "write_session_state"]) await page.getByLabel(scope, { exact: true }).check();
    for (const toolset of ["messaging", "session_state"]) await page.getByLabel(toolset, { exact: true }).check();
    await page.getByRole("button", { name: "Issue" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Credential issued");
    token = ((await page.locator("#issued-token").textContent()) ?? "").trim();
    expect(token).toMatch(/^agq_op_/);
    const mcpConfig = JSON.parse((await page.locator("#mcp-config").textContent()) ?? "{}") as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    expect(Object.values(mcpConfig.mcpServers)[0]?.headers.Authorization).toBe(`Bearer ${token}`);
    expect(Object.values(mcpConfig.mcpServers)[0]?.url).toBe(`${served.baseUrl}/mcp?toolsets=messaging,session_state`);
    await page.getByRole("button", { name: "Copy" }).first().click();
    await expect.poll(() => page.evaluate<string>("navigator.clipboard.readText()")).toBe(token);
    await checkPage("credential-issued");

    const me = await rest("/v1/me");
    expect(me.status).toBe(200);
    expect(((await me.json()) as { ai_account: { friendly_name: string } }).ai_account.friendly_name).toBe("worker-1");
    expect((await rest("/v1/messages/get-pending", { method: "POST", body: "{}" })).status).toBe(200);
  });

  it("freezes the account from the list: its credential gets 403 SVC_FROZEN; unfreezing lets it back in", async () => {
    await page.goto(`${served.baseUrl}/accounts`);
    await page.getByRole("button", { name: "Freeze worker-1" }).click();
    await expect.poll(() => page.locator("tr[data-account=worker-1] .badge").textContent()).toBe("frozen");
    await checkPage("accounts");
    const refused = await rest("/v1/messages/get-pending", { method: "POST", body: "{}" });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("SVC_FROZEN");
    await page.getByRole("button", { name: "Unfreeze worker-1" }).click();
    await expect.poll(() => page.locator("tr[data-account=worker-1] .badge").textContent()).toBe("active");
    expect((await rest("/v1/messages/get-pending", { method: "POST", body: "{}" })).status).toBe(200);
  });

  it("shows the messages: counts on the overview, filters, a dead letter released from the list and another purged from its page", async () => {
    const ids: string[] = [];
    for (const text of ["one", "two"]) {
      const sent = await rest("/v1/messages/send", { method: "POST", headers: { "Idempotency-Key": `note-${text}` }, body: JSON.stringify({ envelope: { recipient: { friendly_name: "worker-1" }, template: "note" }, payload: { text } }) });
      expect(sent.status).toBe(201);
      ids.push(((await sent.json()) as { message_id: string }).message_id);
    }
    await page.goto(`${served.baseUrl}/`);
    expect(await page.locator("tr[data-recipient=worker-1] td.num").first().textContent()).toBe("2");
    await checkPage("overview");
    const claimed = (await (await rest("/v1/messages/get-pending", { method: "POST", body: JSON.stringify({ max: 10 }) })).json()) as { items: { envelope: { message_id: string }; lease: { lease_id: string } }[] };
    expect(claimed.items).toHaveLength(2);
    for (const item of claimed.items) expect((await rest(`/v1/messages/${item.envelope.message_id}/nack`, { method: "POST", body: JSON.stringify({ lease_id: item.lease.lease_id }) })).status).toBe(200);
    // The next claim would be each message's second delivery: both are dead-lettered instead.
    expect(((await (await rest("/v1/messages/get-pending", { method: "POST", body: "{}" })).json()) as { items: unknown[] }).items).toEqual([]);
    await page.goto(`${served.baseUrl}/`);
    expect(await page.locator("[data-count=dead_lettered]").textContent()).toBe("2");

    await page.goto(`${served.baseUrl}/messages?state=dead_lettered`);
    expect(await page.locator("tr[data-message]").count()).toBe(2);
    await checkPage("messages");
    const [released, purged] = ids as [string, string];
    await page.locator(`tr[data-message="${released}"]`).getByRole("button", { name: "Release" }).click();
    await expect.poll(() => page.locator("tr[data-message]").count()).toBe(1);
    expect(await page.getByRole("status").first().textContent()).toContain("Released");
    expect((await (await rest(`/v1/messages/${released}`)).json()) as { state: string }).toMatchObject({ state: "pending" });

    await page.goto(`${served.baseUrl}/messages?sender=worker-1&template=note`);
    expect(await page.locator("tr[data-message]").count()).toBe(2);
    // A filter is a GET form: the address follows (message-pages.pg.test.ts checks Back).
    await page.getByLabel("State").selectOption("dead_lettered");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => page.url()).toMatch(/state=dead_lettered/);
    await expect.poll(() => page.locator("tr[data-message]").count()).toBe(1);
    await page.goto(`${served.baseUrl}/messages?template=result`);
    expect(await page.locator("[data-empty]").count()).toBe(1);

    await page.goto(`${served.baseUrl}/messages/${purged}`);
    expect(await page.locator(".timeline li > code").allTextContents()).toEqual(["message.sent", "message.claimed", "message.nacked", "message.dead_lettered"]);
    await checkPage(); // the docs' message.png comes from message-pages.pg.test.ts
    await page.getByRole("link", { name: "Purge" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Purge this dead letter?");
    await page.getByRole("button", { name: "Purge it" }).click();
    await page.waitForURL(/\/messages\?state=dead_lettered&done=purged$/);
    expect(await page.locator("[data-empty]").count()).toBe(1);
    expect((await rest(`/v1/messages/${purged}`)).status).toBe(404);
    await checkPage();
  });

  it("adds a webhook (its signing secret shown once), shows its deliveries, rotates its key and deletes it", async () => {
    await page.goto(`${served.baseUrl}/webhooks`);
    await page.getByLabel("Name").fill("worker push");
    await page.getByLabel("URL").fill(receiverUrl);
    await page.getByRole("button", { name: "Add the webhook" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Webhook added");
    expect((await page.locator("#signing-secret").textContent())?.trim()).toMatch(/^whsec_/);
    await checkPage("webhook-added");
    const before = received;
    const sent = await rest("/v1/messages/send", { method: "POST", headers: { "Idempotency-Key": "pushed" }, body: JSON.stringify({ envelope: { recipient: { friendly_name: "worker-1" }, template: "note" }, payload: { text: "pushed" } }) });
    expect(sent.status).toBe(201);
    await expect.poll(() => received, { timeout: 10_000 }).toBeGreaterThan(before);
    await page.getByRole("link", { name: "Done" }).click();
    await page.waitForURL(/\/webhooks\/[0-9A-Z]{26}$/);
    const webhookPage = page.url();
    await expect
      .poll(
        async () => {
          await page.goto(webhookPage);
          return page.locator("td .badge").allTextContents();
        },
        { timeout: 10_000 },
      )
      .toContain("delivered");
    await checkPage("webhook");
    await page.getByRole("button", { name: "Rotate the signing key" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Signing key rotated");
    await page.getByRole("link", { name: "Done" }).click();
    await page.getByRole("link", { name: "Delete the webhook" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toMatch(/^Delete the webhook .+\?$/);
    await checkPage();
    await page.getByRole("button", { name: /^Delete / }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Webhook deleted");
    await checkPage();
  });

  it("publishes a required policy and shows who acknowledged it", async () => {
    await page.goto(`${served.baseUrl}/policies`);
    await page.getByLabel("Name").fill("conduct");
    await page.getByLabel("Text").fill("Be kind to other agents.");
    await page.getByLabel(/Required/).check();
    await page.getByRole("button", { name: "Publish" }).click();
    await expect.poll(() => page.locator("section[data-policy=conduct] h3 + p").textContent()).toBe("Nobody yet.");
    const policies = (await (await rest("/v1/policies")).json()) as { items: { id: string; version: number }[] };
    const policy = policies.items[0] as { id: string; version: number };
    expect((await rest(`/v1/policies/${policy.id}/acknowledge`, { method: "POST", headers: { "Idempotency-Key": "ack-1" }, body: JSON.stringify({ version: policy.version }) })).status).toBe(200);
    await page.reload();
    expect(await page.locator("section[data-policy=conduct] li").textContent()).toContain("worker-1: version 1 (current)");
    await checkPage("policies");
  });

  it("shows the agents' session-state records: projects, and a project's build sessions, decisions and backlog", async () => {
    const post = async (path: string, body: unknown) => {
      const res = await rest(path, { method: "POST", body: JSON.stringify(body) });
      expect(res.status, path).toBe(201);
      return (await res.json()) as Record<string, any>;
    };
    const project = await post("/v1/projects", { name: "Site rebuild" });
    await post("/v1/build-sessions", { project_id: project.id, title: "Day one", goal: "new build pipeline" });
    await post("/v1/decision-log", { project_id: project.id, title: "Bundler", decision_md: "Use esbuild.", rationale_md: "Fast, one binary." });
    await post("/v1/backlog", { project_id: project.id, title: "CSS not minified", kind: "bug" });
    await page.goto(`${served.baseUrl}/projects`);
    await page.getByRole("link", { name: "Site rebuild" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Site rebuild");
    expect(await page.locator("tr[data-session] td").first().textContent()).toBe("Day one");
    expect(await page.locator("tr[data-decision] td").nth(1).textContent()).toBe("Bundler");
    expect(await page.locator("tr[data-backlog] td").nth(1).textContent()).toBe("CSS not minified");
    expect(await page.locator("[data-backlog-count=untriaged]").textContent()).toBe("1");
    await checkPage("project");
    // Each record opens to its full text.
    await page.getByRole("link", { name: "Bundler" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Decision #1 Bundler");
    expect(await page.locator(".record-text[data-field=decision_md]").textContent()).toBe("Use esbuild.");
    expect(await page.locator(".record-text[data-field=rationale_md]").textContent()).toBe("Fast, one binary.");
    await checkPage("decision");
    await page.getByRole("link", { name: "Site rebuild" }).click();
    await page.getByRole("link", { name: "Day one" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Build session Day one");
    expect(await page.locator("[data-field=goal]").textContent()).toContain("new build pipeline");
    await checkPage();
    await page.getByRole("link", { name: "Site rebuild" }).click();
    await page.getByRole("link", { name: "CSS not minified" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Backlog item #1 CSS not minified");
    await checkPage();
  });

  it("shows a refusal with its SVC_ code (a duplicate account name) and keeps what was typed", async () => {
    await page.goto(`${served.baseUrl}/accounts`);
    await page.getByLabel("New AI account").fill("worker-1");
    await page.getByRole("button", { name: "Create", exact: true }).click();
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_RESOURCE_CONFLICT");
    expect(await page.getByLabel("New AI account").inputValue()).toBe("worker-1");
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The 409 of the refused request is the one console error Chromium reports.
    expect(problems.seen.filter((p) => !p.includes("status of 409"))).toEqual([]);
    problems.clear();
  });

  it("verifies the audit chain and shows its head; times show in the viewer's time zone", async () => {
    await page.goto(`${served.baseUrl}/audit`);
    expect(await page.locator("tr[data-activity='ai_account.frozen']").count()).toBe(1);
    // The sealer runs every second: verify until the freeze is sealed too.
    await expect
      .poll(
        async () => {
          await page.goto(`${served.baseUrl}/audit?verify=1`);
          return page.locator("[data-verified]").getAttribute("data-verified");
        },
        { timeout: 15_000 },
      )
      .toBe("true");
    expect(await page.locator("[data-chain-head]").textContent()).toMatch(/^[0-9a-f]{64}$/);
    const time = page.locator("td time").first();
    const utc = (await time.getAttribute("title")) ?? "";
    const shown = (await time.textContent()) ?? "";
    expect(utc).toMatch(/Z$/);
    expect(shown).not.toContain("UTC");
    // Tokyo is UTC+9: the hour shown is the UTC hour plus nine.
    const tokyoHour = (new Date(utc).getUTCHours() + 9) % 24;
    expect(shown).toMatch(new RegExp(`\\b${tokyoHour % 12 || 12}:|\\b${String(tokyoHour).padStart(2, "0")}:`));
    await checkPage("audit-log");
  });

  it("shows every other page clean: messages, credentials, webhooks, policies", async () => {
    for (const [path, shot] of [
      ["/messages", "messages"],
      ["/messages?state=dead_lettered", undefined],
      ["/credentials", "credentials"],
      ["/webhooks", "webhooks"],
      ["/projects", undefined],
      ["/settings", "settings"],
    ] as const) {
      await page.goto(`${served.baseUrl}${path}`);
      await checkPage(shot);
    }
  });

  it("fits a phone's width: no page scrolls sideways (wide tables scroll inside their own region)", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    for (const path of ["/", "/messages", "/accounts", "/credentials", "/credentials/new", "/webhooks", "/policies", "/audit", "/projects", "/settings"]) {
      await page.goto(`${served.baseUrl}${path}`);
      expect(await overflowsSideways(page), path).toBe(false);
    }
    await saveDocScreenshot(page, "phone-settings");
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems.seen).toEqual([]);
  });

  it("signs out, and the pages send it back to sign-in; signing in again returns to the page asked for", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in\?signed_out=1$/);
    await page.goto(`${served.baseUrl}/credentials`);
    await page.waitForURL(/\/sign-in\?return_to=%2Fcredentials$/);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${served.baseUrl}/credentials`);
    expect(await page.locator("tr[data-credential]").count()).toBe(1);
    await checkPage();
  });

  it("turns on two-step verification from a QR code, signs in with a real TOTP code, and steps up with a recovery code", async () => {
    await page.goto(`${served.baseUrl}/settings`);
    await page.getByRole("button", { name: "Set up two-step verification" }).click();
    console.log("URL", page.url(), await page.locator("main").innerText());
    await expect.poll(() => page.locator("h1").textContent()).toBe("Set up two-step verification");
    expect(await page.locator("img[data-qr]").getAttribute("src")).toMatch(/^data:image\/svg\+xml;base64,/);
    await checkPage();
    const secret = ((await page.locator("#totp-secret").textContent()) ?? "").trim();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 });
    await page.getByLabel("Code from the app").fill(totp.generate());
    await page.getByRole("button", { name: "Turn it on" }).click();
    await expect.poll(() => page.locator("h1").textContent()).toBe("Two-step verification is on");
    const recoveryCodes = ((await page.locator("#recovery-codes").textContent()) ?? "").trim().split("\n");
    expect(recoveryCodes).toHaveLength(10);
    await checkPage();

    // Turning it on ended this session: the pages ask for a sign-in, now with a second step.
    await page.goto(`${served.baseUrl}/settings`);
    await page.waitForURL(/\/sign-in\?return_to=%2Fsettings$/);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/sign-in\/mfa\?return_to=%2Fsettings$/);
    await checkPage("sign-in-mfa");
    // The code of the next time step: the one of this step was spent on enrolment (one use per step).
    await page.getByLabel("Code from your authenticator app").fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(`${served.baseUrl}/settings`);
    expect(await page.locator("[data-mfa]").getAttribute("data-mfa")).toBe("true");
    // A sign-in completed with MFA counts as a step-up for five minutes.
    expect(await page.locator("section", { has: page.locator("h2", { hasText: "Two-step verification" }) }).textContent()).toContain("Confirmed until");
    await checkPage("settings-mfa");

    await page.locator("summary", { hasText: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0] ?? "");
    await page.getByRole("button", { name: "Confirm it is you" }).click();
    await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Confirmed");
    // The same recovery code again is refused: each works once.
    await page.locator("summary", { hasText: "Use a recovery code instead" }).click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0] ?? "");
    await page.getByRole("button", { name: "Confirm it is you" }).click();
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_UNAUTHENTICATED");
    expect(problems.seen.filter((p) => !p.includes("status of 401"))).toEqual([]);
    problems.clear();
  });
});
