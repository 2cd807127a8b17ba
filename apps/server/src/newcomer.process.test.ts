import { NAV, expectCleanPage, launchChromium, watchPage, type PageProblems } from "@agentq/dashboard/testing";
import { freePort } from "@agentq/postgres";
import { testDatabaseUrl } from "@agentq/postgres/testing";
import { createHash, randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForEmlMails, type TestMail } from "@agentq/runtime/testing";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { REPO_ROOT, runPnpm, serverEnv, spawnServer, stopProcessGroup, type SpawnedServer } from "./testing/spawn-server.ts";

// The product as a newcomer meets it (issue 26): the README's commands, typed from the repository's
// root on a fresh database, then the pages people open, in real Chromium: sign-up, sign-in, every
// page of the navigation, the OAuth consent page, the error page of an unknown client, and the pages
// the mailed links open (an invitation, a password reset). No response of the server is a 5xx and no
// page logs a console error. The same walk runs against `pnpm start` (tsx) and against the bundle
// (`pnpm build && pnpm start:prod`): once every page was a 500 under `pnpm start` while every
// in-process test passed. Mail goes where `pnpm start` puts it without SMTP_URL: .eml files under
// the data folder (DESIGN §2b), read here as a newcomer reads theirs.
const PASSWORD = "a quiet harbour at dawn 7";
const NEW_PASSWORD = "another quiet harbour 8";

const STARTS: readonly { name: string; build: boolean; argv: readonly [string, ...string[]]; shots: boolean }[] = [
  { name: "pnpm start", build: false, argv: ["pnpm", "start"], shots: true },
  { name: "pnpm build && pnpm start:prod", build: true, argv: ["pnpm", "start:prod"], shots: false },
];

function linkIn(mail: TestMail, path: string): string {
  const m = new RegExp(`https?://[^\\s]+${path}#token=[A-Za-z0-9_-]+`).exec(mail.text);
  if (m === null) throw new Error(`no ${path} link in the mail "${mail.subject}"`);
  return m[0];
}

for (const start of STARTS) {
  describe(`a newcomer's first visit, served by \`${start.name}\``, () => {
    let db: ScratchDatabase;
    let server: SpawnedServer;
    let mailDir: string;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    let problems: PageProblems;
    const serverFaults: string[] = [];
    const email = `owner-${randomBytes(4).toString("hex")}@newcomer.test`;

    const watch = (p: Page) => {
      p.on("response", (r) => {
        if (r.status() >= 500) serverFaults.push(`${r.status()} ${r.request().method()} ${r.url()}`);
      });
      return watchPage(p);
    };
    const mailsTo = (address: string, atLeast: number) => waitForEmlMails(`${mailDir}/mail`, { atLeast, to: address, timeoutMs: 10_000 });

    beforeAll(async () => {
      if (start.build) {
        const built = await runPnpm(["build"], { ...process.env });
        expect(built.code, built.stderr + built.stdout).toBe(0);
      }
      db = await createScratchDatabase(testDatabaseUrl());
      // A port of its own, as a user sets PORT: the mailed links and the origin check name it.
      const env = serverEnv(db.url, { PORT: String(await freePort()) });
      mailDir = String(env.AGENTQ_DATA_DIR);
      server = await spawnServer(env, 90_000, { argv: start.argv, cwd: REPO_ROOT });
      browser = await launchChromium();
      context = await browser.newContext();
      page = await context.newPage();
      problems = watch(page);
    }, 240_000);
    afterAll(async () => {
      await browser?.close();
      if (server !== undefined) await stopProcessGroup(server);
      await db?.drop();
    });

    it("opens `/` on the sign-in page, clean", async () => {
      const response = await page.goto(`${server.baseUrl}/`);
      expect(response?.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe("/sign-in");
      expect(await page.locator("a[href='/forgot-password']").count()).toBe(1);
      await expectCleanPage(page, problems, start.shots ? "sign-in" : undefined);
    });

    it("signs up through the mailed verification link and lands on the overview", async () => {
      await page.click("a[href='/sign-up']");
      await page.waitForURL(/\/sign-up$/);
      await expectCleanPage(page, problems, start.shots ? "sign-up" : undefined);
      await page.fill("#workspace_name", "Newcomer Works");
      await page.fill("#email", email);
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForLoadState("load"), page.click("form[action='/sign-up'] button[type=submit]")]);
      // Nothing exists until the address is proven (DESIGN §2c): the page says to check the mail.
      expect(await page.locator("[data-sign-up=sent]").count()).toBe(1);
      await expectCleanPage(page, problems, start.shots ? "sign-up-sent" : undefined);
      const [verification] = await mailsTo(email, 1);
      expect(verification).toBeDefined();
      expect((await page.goto(linkIn(verification as TestMail, "/verify-email")))?.status()).toBe(200);
      expect(await page.inputValue("#token")).toMatch(/^agq_ev_/);
      await expectCleanPage(page, problems, start.shots ? "verify-email" : undefined);
      await Promise.all([page.waitForURL((u) => u.pathname === "/"), page.click("form[action='/verify-email'] button[type=submit]")]);
      await expectCleanPage(page, problems);
    });

    it("signs out and back in", async () => {
      await Promise.all([page.waitForURL(/\/sign-in/), page.click("form[action='/sign-out'] button")]);
      await page.fill("#email", email);
      await page.fill("#password", PASSWORD);
      await Promise.all([page.waitForURL((u) => u.pathname === "/"), page.click("form[action='/sign-in'] button[type=submit]")]);
      await expectCleanPage(page, problems);
    });

    it("opens every page of the navigation with 200", async () => {
      for (const item of NAV) {
        const response = await page.goto(`${server.baseUrl}${item.href}`);
        expect(response?.status(), item.href).toBe(200);
        expect(new URL(page.url()).pathname, item.href).toBe(item.href);
        // A fresh workspace's overview is what a newcomer sees first; the other pages' screenshots
        // show data and are taken by their own tests.
        await expectCleanPage(page, problems, start.shots && item.key === "overview" ? "overview-new-workspace" : undefined);
      }
    });

    it("shows the consent page of a registered client, and the error page of an unknown one", async () => {
      const registered = await fetch(`${server.baseUrl}/oauth/register`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ client_name: "Newcomer's editor", redirect_uris: ["http://127.0.0.1:33418/callback"] }),
      });
      expect(registered.status).toBe(201);
      const { client_id } = (await registered.json()) as { client_id: string };
      const verifier = randomBytes(32).toString("base64url");
      const query = (clientId: string) =>
        new URLSearchParams({
          response_type: "code",
          client_id: clientId,
          redirect_uri: "http://127.0.0.1:33418/callback",
          code_challenge: createHash("sha256").update(verifier).digest("base64url"),
          code_challenge_method: "S256",
          state: "s1",
          scope: "send get_pending",
        }).toString();
      const consent = await page.goto(`${server.baseUrl}/oauth/authorize?${query(client_id)}`);
      expect(consent?.status()).toBe(200);
      expect(await page.locator("button[name=decision][value=approve]").count()).toBe(1);
      await expectCleanPage(page, problems, start.shots ? "consent" : undefined);

      const unknown = await page.goto(`${server.baseUrl}/oauth/authorize?${query("no-such-client")}`);
      expect(unknown?.status()).toBeGreaterThanOrEqual(400);
      expect(unknown?.status()).toBeLessThan(500);
      expect(await page.locator("[data-error-code]").count()).toBe(1);
      // The browser reports the page's own 4xx as a console error: that one was expected.
      expect(problems.seen.filter((p) => !/status of 4\d\d/.test(p))).toEqual([]);
      problems.clear();
    });

    it("invites a person, who joins through the mailed link and signs in", async () => {
      const invitee = `colleague-${randomBytes(4).toString("hex")}@newcomer.test`;
      await page.goto(`${server.baseUrl}/people`);
      await page.fill("#invite-email", invitee);
      await page.selectOption("#invite-role", "admin");
      await Promise.all([page.waitForLoadState("load"), page.click("form[action='/people'] button[type=submit]")]);
      const [invitation] = await mailsTo(invitee, 1);
      expect(invitation).toBeDefined();
      const link = linkIn(invitation as TestMail, "/accept-invitation");

      const theirs = await browser.newContext();
      const theirPage = await theirs.newPage();
      const theirProblems = watch(theirPage);
      expect((await theirPage.goto(link))?.status()).toBe(200);
      // The script of this origin moved the token from the fragment into the form.
      expect(await theirPage.inputValue("#token")).toMatch(/^agq_/);
      expect(new URL(theirPage.url()).hash).toBe("");
      await expectCleanPage(theirPage, theirProblems, start.shots ? "accept-invitation" : undefined);
      await theirPage.fill("#password", PASSWORD);
      await Promise.all([theirPage.waitForURL(/\/sign-in\?password_set=1/), theirPage.click("form[action='/accept-invitation'] button[type=submit]")]);
      await theirPage.fill("#email", invitee);
      await theirPage.fill("#password", PASSWORD);
      await Promise.all([theirPage.waitForURL((u) => u.pathname === "/"), theirPage.click("form[action='/sign-in'] button[type=submit]")]);
      await expectCleanPage(theirPage, theirProblems);
      await theirs.close();
    });

    it("resets a forgotten password through the mailed link", async () => {
      await Promise.all([page.waitForURL(/\/sign-in/), page.click("form[action='/sign-out'] button")]);
      await Promise.all([page.waitForURL(/\/forgot-password$/), page.click("a[href='/forgot-password']")]);
      await page.fill("#email", email);
      await Promise.all([page.waitForLoadState("load"), page.click("form[action='/forgot-password'] button[type=submit]")]);
      expect(await page.locator(".notice.ok").count()).toBe(1);
      await expectCleanPage(page, problems, start.shots ? "forgot-password" : undefined);
      const reset = (await mailsTo(email, 2)).find((m) => m.text.includes("/reset-password#token="));
      expect(reset).toBeDefined();
      expect((await page.goto(linkIn(reset as TestMail, "/reset-password")))?.status()).toBe(200);
      expect(await page.inputValue("#token")).toMatch(/^agq_/);
      await expectCleanPage(page, problems, start.shots ? "reset-password" : undefined);
      await page.fill("#password", NEW_PASSWORD);
      await Promise.all([page.waitForURL(/\/sign-in\?password_set=1/), page.click("form[action='/reset-password'] button[type=submit]")]);
      await page.fill("#email", email);
      await page.fill("#password", NEW_PASSWORD);
      await Promise.all([page.waitForURL((u) => u.pathname === "/"), page.click("form[action='/sign-in'] button[type=submit]")]);
      await expectCleanPage(page, problems);
    });

    it("answered no request with a 5xx, and logged no server fault", () => {
      expect(serverFaults).toEqual([]);
      expect(server.output()).not.toMatch(/"level":50/);
    });
  });
}
