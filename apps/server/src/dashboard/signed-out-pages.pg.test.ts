import { launchChromium, overflowsSideways, seriousAxeViolations, watchPage, type PageProblems } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";

// The signed-out pages in real Chromium (Debian's, through playwright-core): served by the
// composed service at `/` beside REST and MCP, under the dashboard's Content-Security-Policy.
describe("dashboard, signed out, in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;

  beforeAll(async () => {
    served = await serveComposed();
    browser = await launchChromium();
    page = await browser.newPage();
    problems = watchPage(page);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  it("sends the overview to the sign-in page, which loads its files under the CSP with no console error and no serious axe violation", async () => {
    const response = await page.goto(`${served.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    const csp = response?.headers()["content-security-policy"] ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(response?.headers()["cache-control"]).toBe("no-store");
    // htmx (from the htmx.org package), the local-time and copy scripts ran: none was blocked.
    expect(await page.evaluate<string>("typeof htmx === 'object' ? htmx.version : 'missing'")).toMatch(/^4\./);
    expect(await page.evaluate<boolean>("document.documentElement.classList.contains('js')")).toBe(true);
    expect(await page.locator("input[name=email]").count()).toBe(1);
    // No identity provider configured: no OIDC button (oidc-sign-in-page.pg.test.ts has one).
    expect(await page.locator("a[href^='/v1/auth/oidc/start']").count()).toBe(0);
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(problems.seen).toEqual([]);
  });

  it("shows the sign-up and email-verification pages clean, and the three pages fit a phone's width", async () => {
    await page.goto(`${served.baseUrl}/sign-up`);
    expect(await page.locator("input[name=workspace_name]").count()).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // Opened without a token in the fragment: the field is empty, for a token pasted by hand.
    await page.goto(`${served.baseUrl}/verify-email`);
    expect(await page.locator("input[name=token]").inputValue()).toBe("");
    expect(await seriousAxeViolations(page)).toEqual([]);
    for (const path of ["/sign-in", "/sign-up", "/verify-email"]) {
      await page.setViewportSize({ width: 360, height: 740 });
      await page.goto(`${served.baseUrl}${path}`);
      expect(await overflowsSideways(page)).toBe(false);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(problems.seen).toEqual([]);
  });

  it("answers a path no page has with a page naming SVC_ROUTE_NOT_FOUND (and the envelope to a JSON client)", async () => {
    const response = await page.goto(`${served.baseUrl}/no-such-page`);
    expect(response?.status()).toBe(404);
    expect(await page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_ROUTE_NOT_FOUND");
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The browser reports the 404 of the page itself as a console error: that one was expected.
    expect(problems.seen.filter((p) => !p.includes("status of 404"))).toEqual([]);
    problems.clear();
    const json = await fetch(`${served.baseUrl}/no-such-page`, { headers: { Accept: "application/json" } });
    expect(json.status).toBe(404);
    expect(((await json.json()) as { error: { code: string } }).error.code).toBe("SVC_ROUTE_NOT_FOUND");
  });

  it("serves htmx and its own files from this origin with long caching, and nothing else under /assets", async () => {
    const html = await (await fetch(`${served.baseUrl}/sign-in`)).text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(scripts.some((s) => /^\/assets\/htmx\.[0-9a-f]{12}\.js$/.test(s))).toBe(true);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)/);
    expect(html).not.toMatch(/\sstyle=/);
    for (const src of scripts) {
      const res = await fetch(`${served.baseUrl}${src}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toContain("immutable");
    }
    expect((await fetch(`${served.baseUrl}/assets/htmx.000000000000.js`)).status).toBe(404);
  });
});
