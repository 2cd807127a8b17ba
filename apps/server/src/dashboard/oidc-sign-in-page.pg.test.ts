import { launchChromium, overflowsSideways, saveDocScreenshot, seriousAxeViolations, watchPage, type PageProblems } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenIdClientProvider } from "../oidc/openid-client-provider.ts";
import { startTestIdentityProvider, type TestIdentityProvider } from "../testing/identity-provider.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";

// The sign-in page offers OIDC when, and only when, the server has an identity provider
// configured (SVC_OIDC_*: here a real oidc-provider on 127.0.0.1), under its label; the button
// signs a person in through the provider and back to the page asked for, in real Chromium.
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

  it("fits a phone's width with the button", async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
    const phone = await context.newPage();
    await phone.goto(`${served.baseUrl}/sign-in`);
    expect(await phone.getByRole("link", { name: "Sign in with Acme SSO" }).count()).toBe(1);
    expect(await overflowsSideways(phone)).toBe(false);
    await context.close();
  });
});
