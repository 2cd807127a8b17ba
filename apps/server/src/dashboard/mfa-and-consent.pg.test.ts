import { expectCleanPage, launchChromium, type PageProblems, watchPage } from "@agentq/dashboard/testing";
import { createHash, randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, startMfaSetUpOnPage, submitMfaSetUpCode, wrongCodeFor, type DashboardPerson } from "./dashboard-people.ts";

// Two-step verification's set-up survives a wrong code (the same secret, the error shown), and
// the OAuth consent page preselects no AI account (approving without a choice is not possible)
// and shows each radio button beside its label. In real Chromium.
const REDIRECT = "http://127.0.0.1:33419/callback";

describe("dashboard: MFA set-up and the consent page in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let withMfa: DashboardPerson;
  let recoveryCodes: string[] = [];

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@twostep.test", password: "a long and quiet river", workspaceName: "Two Step Works", aiAccount: "coder" });
    await fetch(`${served.baseUrl}/v1/ai-accounts`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: JSON.stringify({ friendly_name: "reviewer" }) });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
    await signInOnPage(page, served.baseUrl, owner);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it("the consent page preselects no AI account, refuses an approval without one, and puts each label beside its radio", async () => {
    const registered = await fetch(`${served.baseUrl}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: "Careful editor", redirect_uris: [REDIRECT] }) });
    const { client_id } = (await registered.json()) as { client_id: string };
    const verifier = randomBytes(32).toString("base64url");
    const query = new URLSearchParams({ response_type: "code", client_id, redirect_uri: REDIRECT, code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256", state: "s1", scope: "send get_pending" });
    await page.goto(`${served.baseUrl}/oauth/authorize?${query.toString()}`);
    const radios = page.locator("input[type=radio][name=ai_account]");
    expect(await radios.count()).toBe(3);
    expect(await page.locator("input[type=radio][name=ai_account]:checked").count()).toBe(0);
    for (const name of ["coder", "reviewer"]) {
      const radio = await page.getByRole("radio", { name }).boundingBox();
      const label = await page.locator("label", { hasText: name }).boundingBox();
      // Beside: on the same line, the label to the right of its radio.
      expect(Math.abs((radio?.y ?? 0) + (radio?.height ?? 0) / 2 - ((label?.y ?? 0) + (label?.height ?? 0) / 2))).toBeLessThan(8);
      expect(label?.x ?? 0).toBeGreaterThan(radio?.x ?? 0);
    }
    await expectCleanPage(page, problems, "consent-choose-account");
    // Approve without a choice: the browser asks for one and nothing is sent.
    await page.getByRole("button", { name: "Approve" }).click();
    expect(page.url()).toContain("/oauth/authorize?");
    expect(await page.getByRole("radio", { name: "reviewer" }).evaluate((r) => (r as unknown as { validity: { valueMissing: boolean } }).validity.valueMissing)).toBe(true);
    await page.getByRole("radio", { name: "reviewer" }).check();
    const redirected = page.waitForRequest((r) => r.url().startsWith(REDIRECT));
    await page.getByRole("button", { name: "Approve" }).click();
    const url = new URL((await redirected).url());
    expect(url.searchParams.get("code")).toMatch(/.+/);
    const [grant] = await served.db.sql<{ friendly_name: string }[]>`SELECT a.friendly_name FROM oauth_authorization_codes g JOIN ai_accounts a ON a.id = g.ai_account_id WHERE g.client_id = ${client_id}`;
    expect(grant?.friendly_name).toBe("reviewer");
    // The browser follows the redirect to a client that is not listening: let that settle.
    await page.waitForURL((u) => !u.href.startsWith(served.baseUrl));
  });

  it("a wrong code during MFA set-up keeps the set-up: the same secret, the error shown; the right code then turns it on", async () => {
    const { secret, totp } = await startMfaSetUpOnPage(page, served.baseUrl);
    expect(await page.locator("h1").textContent()).toBe("Set up two-step verification");
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await submitMfaSetUpCode(page, wrongCodeFor(totp));
    await expect.poll(() => page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_UNAUTHENTICATED");
    expect(((await page.locator("#totp-secret").textContent()) ?? "").trim()).toBe(secret);
    expect(await page.locator("[data-qr]").count()).toBe(1);
    expect((await page.locator("[data-error-code]").textContent()) ?? "").toContain("the code was not right");
    problems.clear(); // the 401 of the wrong code
    await submitMfaSetUpCode(page, totp.generate());
    await expect.poll(() => page.locator("h1").textContent()).toBe("Two-step verification is on");
    recoveryCodes = ((await page.locator("#recovery-codes").textContent()) ?? "").trim().split("\n");
    expect(recoveryCodes).toHaveLength(10);
    withMfa = { ...owner, totp };
  });

  it("new recovery codes and turning MFA off each ask first and need a fresh step-up: asked for, then done", async () => {
    await signInOnPage(page, served.baseUrl, withMfa);
    // The sign-in with a code counts as a step-up for five minutes: let it lapse.
    await served.db.sql`UPDATE person_sessions SET step_up_until = now() - interval '1 minute' WHERE person_id = (SELECT id FROM persons WHERE email = ${owner.email})`;
    // Each asks first on a page of its own; the step-up comes after, and returns to the question.
    const question = (action: string) => page.locator(`[data-confirm="${action}"]`);
    await page.goto(`${served.baseUrl}/settings`);
    await page.locator('a[href="/settings/mfa/recovery-codes"]').click();
    await expect.poll(() => question("/settings/mfa/recovery-codes").count()).toBe(1);
    await expectCleanPage(page, problems);
    await question("/settings/mfa/recovery-codes").locator("button[type=submit]").click();
    await expect.poll(() => page.url()).toContain("/settings/step-up?return_to=%2Fsettings%2Fmfa%2Frecovery-codes");
    await page.getByText("Use a recovery code instead").click();
    await page.getByLabel("Recovery code").fill(recoveryCodes[0] as string);
    await page.getByRole("button", { name: "Confirm it is you" }).click();
    await expect.poll(() => page.url()).toBe(`${served.baseUrl}/settings/mfa/recovery-codes`);
    await question("/settings/mfa/recovery-codes").locator("button[type=submit]").click();
    await page.locator("#recovery-codes").waitFor();
    const fresh = ((await page.locator("#recovery-codes").textContent()) ?? "").trim().split("\n");
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(recoveryCodes[1]);
    await expectCleanPage(page, problems);
    // The old codes stopped working; a new one steps up.
    const stepUp = (body: unknown) => page.context().request.post(`${served.baseUrl}/v1/auth/step-up`, { data: body, headers: { Origin: served.baseUrl } });
    expect((await stepUp({ recovery_code: recoveryCodes[1] })).status()).toBe(401);
    expect((await stepUp({ recovery_code: fresh[0] })).status()).toBe(200);
    await page.goto(`${served.baseUrl}/settings`);
    await page.locator('a[href="/settings/mfa/disable"]').click();
    await expect.poll(() => question("/settings/mfa/disable").count()).toBe(1);
    // A bare POST gets the question too, and changes nothing.
    const bare = await page.context().request.post(`${served.baseUrl}/settings/mfa/disable`, { form: {}, headers: { Origin: served.baseUrl } });
    expect(await bare.text()).toContain('data-confirm="/settings/mfa/disable"');
    expect((await served.db.sql<{ mfa_enabled_at: Date | null }[]>`SELECT mfa_enabled_at FROM persons WHERE email = ${owner.email}`)[0]?.mfa_enabled_at).not.toBeNull();
    await question("/settings/mfa/disable").locator("button[type=submit]").click();
    await expect.poll(() => page.url()).toBe(`${served.baseUrl}/settings?done=mfa_disabled`);
    expect(await page.getByRole("button", { name: "Set up two-step verification" }).count()).toBe(1);
    const [row] = await served.db.sql<{ mfa_enabled_at: Date | null }[]>`SELECT mfa_enabled_at FROM persons WHERE email = ${owner.email}`;
    expect(row?.mfa_enabled_at).toBeNull();
    await expectCleanPage(page, problems);
  });
});
