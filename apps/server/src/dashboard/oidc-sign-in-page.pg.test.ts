import { launchChromium, overflowsSideways, saveDocScreenshot, seriousAxeViolations, watchPage, type PageProblems } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenIdClientProvider } from "@agentq/runtime";
import { startTestIdentityProvider, type TestIdentityProvider } from "@agentq/runtime/testing";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard } from "./dashboard-people.ts";

// The sign-in page offers OIDC when, and only when, the server has an identity provider
// configured (SVC_OIDC_*: here a real oidc-provider on 127.0.0.1), under its label; the button
// signs a person in through the provider and back to the page asked for, in real Chromium. A
// person with a password links the provider from the settings page, and only then signs in with it.
describe("dashboard: the OIDC button follows the server's settings", () => {
  let served: ServedService;
  let idp: TestIdentityProvider | undefined;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    served = await serveComposed({
      oidc: async (baseUrl) => {
        idp = await startTestIdentityProvider({ redirectUris: [`${baseUrl}/v1/auth/oidc/callback`] });
        return createOpenIdClientProvider({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: "Acme SSO" });
      },
    });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await idp?.close();
  });

  it("shows the button under the configured label; it signs in through the provider and returns to the page asked for", async () => {
    await page.goto(`${served.baseUrl}/settings`);
    await page.waitForURL(/\/sign-in\?return_to=%2Fsettings$/);
    const button = page.getByRole("link", { name: "Sign in with Acme SSO" });
    expect(await button.count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await saveDocScreenshot(page, "sign-in-oidc");
    idp?.signInAs({ sub: "ada-1", email: "ada@acme.test", email_verified: true, name: "Ada" });
    await button.click();
    await page.waitForURL(`${served.baseUrl}/settings`);
    expect(await page.locator(".who").textContent()).toContain("Ada (owner)");
    expect(await page.locator("main").textContent()).toContain("ada@acme.test");
    expect(problems.seen).toEqual([]);
  });

  it("links the provider from the settings page of a person who signed up with a password; the button then signs that person in", async () => {
    const bea = await signUpForDashboard(served, { email: "bea@acme.test", password: "a long and quiet river", workspaceName: "Bea Works" });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const own = await context.newPage();
    const seen = watchPage(own);
    // Not linked yet: the provider vouching for her email signs nobody in.
    idp?.signInAs({ sub: "bea-at-acme", email: "bea@acme.test", email_verified: true, name: "Bea" });
    const refused = await own.goto(`${served.baseUrl}/v1/auth/oidc/start?return_to=%2F`);
    expect(refused?.status()).toBe(409);
    // The browser reports that answer (a JSON error, and the icon it then looks for) as console errors on the callback: those were expected.
    const unexpected = () => seen.seen.filter((p) => !p.includes("/v1/auth/oidc/callback?"));
    await signInOnPage(own, served.baseUrl, bea);
    await own.goto(`${served.baseUrl}/settings`);
    const section = own.locator("[data-linked-identities]");
    expect(await section.getAttribute("data-linked-identities")).toBe("0");
    expect(await seriousAxeViolations(own)).toEqual([]);
    idp?.signInAs({ sub: "bea-at-acme", email: "bea@acme.test", email_verified: true, name: "Bea" });
    await own.getByRole("link", { name: "Link Acme SSO" }).click();
    await own.waitForURL(`${served.baseUrl}/settings?done=linked`);
    expect(await own.locator("[data-linked-identities]").getAttribute("data-linked-identities")).toBe("1");
    expect(await own.getByRole("status").first().textContent()).toContain("Linked");
    expect(await seriousAxeViolations(own)).toEqual([]);
    await saveDocScreenshot(own, "settings-linked-identity");
    expect(unexpected()).toEqual([]);
    await context.close();

    const fresh = await (await browser.newContext()).newPage();
    await fresh.goto(`${served.baseUrl}/sign-in`);
    idp?.signInAs({ sub: "bea-at-acme", email: "bea@acme.test", email_verified: true, name: "Bea" });
    await fresh.getByRole("link", { name: "Sign in with Acme SSO" }).click();
    await fresh.waitForURL(`${served.baseUrl}/`);
    expect(await fresh.locator(".who").textContent()).toContain("Bea Works");
  });

  it("fits a phone's width with the button", async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
    const phone = await context.newPage();
    await phone.goto(`${served.baseUrl}/sign-in`);
    expect(await phone.getByRole("link", { name: "Sign in with Acme SSO" }).count()).toBe(1);
    expect(await overflowsSideways(phone)).toBe(false);
    await context.close();
  });
});
