import { OPERATIONAL_SCOPES } from "@agentq/core";
import { expectCleanPage, launchChromium, overflowsSideways, type PageProblems, saveDocScreenshot, seriousAxeViolations, watchPage } from "@agentq/dashboard/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedPerson, sessionHeaders } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";
import { signInOnPage, signUpForDashboard, type DashboardPerson } from "./dashboard-people.ts";

// The Lessons, lesson candidates and Rules pages in real Chromium. An agent of the workspace
// (a credential issued by the owner's session) records everything over REST: two sessions'
// learnings become candidates, one is promoted to a lesson, lessons are recorded, retired,
// rules derived and one archived. The owner reads them, filters them, follows the links between
// them and pages through a long list; these records are the agents' own (a person's session is
// refused their writes: 403 SVC_SCOPE_INSUFFICIENT), so the pages have no write buttons. A
// person of another workspace never sees them and gets 404 for their URLs.
type Json = Record<string, any>;

describe("dashboard: lessons, candidates and rules in Chromium", () => {
  let served: ServedService;
  let browser: Browser;
  let page: Page;
  let problems: PageProblems;
  let owner: DashboardPerson;
  let other: DashboardPerson;
  let token = "";
  let project: Json = {};
  let bulk: Json = {};
  let promoted: Json = {};
  let pendingReady: Json = {};
  let retired: Json = {};
  let mustRule: Json = {};
  let archivedRule: Json = {};

  async function rest(method: string, path: string, body?: unknown): Promise<Json> {
    const res = await fetch(`${served.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await res.json()) as Json;
    expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
    return json;
  }

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpForDashboard(served, { email: "owner@lessons.test", password: "a long and quiet river", workspaceName: "Learning Works", aiAccount: "learner" });
    other = await signUpForDashboard(served, { email: "bea@lessons.test", password: "another long quiet river", workspaceName: "Other Works" });
    const issued = await fetch(`${served.baseUrl}/v1/credentials`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: JSON.stringify({ ai_account_id: owner.aiAccountId, tier: "operational", scopes: OPERATIONAL_SCOPES, name: "learner-box" }) });
    expect(issued.status).toBe(201);
    token = ((await issued.json()) as { token: string }).token;

    project = await rest("POST", "/v1/projects", { name: "Site rebuild" });
    const lock = "Run database migrations with the advisory lock held";
    const store = "Cache the pnpm store between continuous integration runs";
    for (const [title, learnings] of [
      ["Monday", [lock, store, "Screenshots need a fixed viewport width"]],
      ["Tuesday", [lock, store]],
    ] as const) {
      const started = await rest("POST", "/v1/build-sessions", { project_id: project.id, title });
      await rest("POST", `/v1/build-sessions/${started.session.id as string}/end`, { summary_md: "done", learnings });
    }
    const detected = await rest("POST", "/v1/lesson-candidates/detect", { project_id: project.id });
    expect(detected.created).toHaveLength(3);
    const byTitle = (words: string) => detected.created.find((c: Json) => (c.title as string).includes(words)) as Json;
    pendingReady = byTitle("pnpm store");
    promoted = (await rest("POST", `/v1/lesson-candidates/${byTitle("advisory lock").id as string}/promote`, { slug: "migrations-lock" })).lesson;
    retired = await rest("POST", "/v1/lessons", { title: "Pin the browser build", body_md: "Do: use Debian's chromium.", why_md: "Downloads fail offline.", tags: ["ci"] });
    await rest("POST", `/v1/lessons/${retired.id as string}/status`, { status: "retired", reason: "Debian's chromium is the only one now." });
    const always = await rest("POST", "/v1/lessons", { title: "Say what a test proves", body_md: "Do: name the behaviour in the test title." });
    mustRule = await rest("POST", "/v1/rules/derive", { lesson_id: promoted.id, level: "must", triggers: { paths: ["packages/postgres/migrations/**"], operations: ["modify"] } });
    archivedRule = await rest("POST", "/v1/rules/derive", { lesson_id: always.id, always_apply: true });
    await rest("POST", `/v1/rules/${archivedRule.id as string}/archive`, { reason: "Folded into the style guide." });

    // A second project with more lessons than one page holds (50).
    bulk = await rest("POST", "/v1/projects", { name: "Bulk" });
    for (let i = 1; i <= 52; i++) await rest("POST", "/v1/lessons", { project_id: bulk.id, title: `Bulk lesson ${i}`, body_md: `Do: step ${i}.` });

    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    problems = watchPage(page);
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
  });

  const checkPage = (shot?: string) => expectCleanPage(page, problems, shot);

  it("lists the default project's lessons; the status filter narrows them", async () => {
    await signInOnPage(page, served.baseUrl, owner);
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Lessons" }).click();
    await page.waitForURL(`${served.baseUrl}/lessons`);
    expect(await page.getByLabel("Project").locator("option:checked").textContent()).toBe("Site rebuild");
    expect(await page.locator("tr[data-lesson]").count()).toBe(3);
    const row = page.locator("tr[data-lesson=migrations-lock]");
    expect(await row.locator("td.num").allTextContents()).toEqual(["2", "2"]);
    expect(await row.locator(".badge").textContent()).toBe("active");
    expect(await page.getByRole("link", { name: "Candidates (2 pending)" }).count()).toBe(1);
    expect(await page.locator("form[method=post]").count()).toBe(1); // sign-out only
    await checkPage("lessons");

    await page.getByLabel("Status").selectOption("retired");
    await page.waitForURL(/status=retired/);
    await expect.poll(() => page.locator("tr[data-lesson]").count()).toBe(1);
    expect(await page.locator("tr[data-lesson] a").textContent()).toBe("Pin the browser build");
    await page.getByLabel("Status").selectOption("superseded");
    await expect.poll(() => page.locator("[data-empty]").textContent()).toContain("No superseded lessons in this project.");
    await checkPage();
  });

  it("shows a lesson: its text, counts, the candidate it came from, its rules and observations", async () => {
    await page.goto(`${served.baseUrl}/lessons?project=${project.id as string}`);
    await page.getByRole("link", { name: promoted.title as string }).click();
    await page.waitForURL(`${served.baseUrl}/lessons/${promoted.id as string}`);
    expect(await page.locator("h1").textContent()).toBe(promoted.title);
    expect(await page.locator("dl.facts").textContent()).toContain("2 times in 2 sessions");
    expect(await page.locator("li[data-observation]").count()).toBe(2);
    expect(await page.locator("li[data-rule=migrations-lock]").textContent()).toContain("active");
    await checkPage("lesson");
    await page.getByRole("link", { name: "a lesson candidate", exact: true }).click();
    await page.waitForURL(/\/lesson-candidates\//);
    expect(await page.locator("dl.facts .badge").first().textContent()).toBe("promoted");
    expect(await page.locator("li[data-evidence]").count()).toBe(2);
    await page.getByRole("link", { name: "the lesson", exact: true }).click();
    await page.waitForURL(`${served.baseUrl}/lessons/${promoted.id as string}`);
    await checkPage();

    await page.goto(`${served.baseUrl}/lessons/${retired.id as string}`);
    expect(await page.locator("dl.facts").textContent()).toContain("Debian's chromium is the only one now.");
    expect(await page.locator("section[aria-label=Why] pre").textContent()).toBe("Downloads fail offline.");
    expect(await page.locator("[data-empty]").first().textContent()).toContain("No rule derives from this lesson.");
    await checkPage();
  });

  it("lists the lesson candidates, pending ones by default, and shows one with its evidence", async () => {
    await page.goto(`${served.baseUrl}/lessons`);
    await page.getByRole("link", { name: "Candidates (2 pending)" }).click();
    await page.waitForURL(/\/lesson-candidates\?project=/);
    expect(await page.locator("tr[data-candidate]").count()).toBe(2);
    const ready = page.locator(`tr[data-candidate="${pendingReady.id as string}"]`);
    expect(await ready.locator(".badge").allTextContents()).toEqual(["ready", "pending"]);
    expect(await ready.locator("td.num").allTextContents()).toEqual([String(pendingReady.score), "2"]);
    await checkPage("lesson-candidates");
    await page.getByLabel("Status").selectOption("promoted");
    await expect.poll(() => page.locator("tr[data-candidate]").count()).toBe(1);
    expect(await page.locator("tr[data-candidate] td").nth(2).textContent()).toBe("promoted");
    await page.getByLabel("Status").selectOption("any");
    await expect.poll(() => page.locator("tr[data-candidate]").count()).toBe(3);

    await page.goto(`${served.baseUrl}/lesson-candidates/${pendingReady.id as string}`);
    expect(await page.locator("h1").textContent()).toBe(pendingReady.title);
    expect(await page.locator("li[data-evidence]").count()).toBe(2);
    expect(await page.locator("section[aria-label='Proposed lesson'] pre").textContent()).toContain("pnpm store");
    await checkPage("lesson-candidate");
  });

  it("lists the rules, active by default, with level and triggers; archived ones on request; a rule shows its triggers", async () => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Rules" }).click();
    await page.waitForURL(`${served.baseUrl}/rules`);
    expect(await page.locator("tr[data-rule]").count()).toBe(1);
    const row = page.locator("tr[data-rule=migrations-lock]");
    expect(await row.locator("td").nth(2).textContent()).toBe("must");
    expect(await row.locator("td").nth(3).textContent()).toBe("1 path · modify");
    await checkPage("rules");
    await page.getByLabel("Status").selectOption("archived");
    await page.waitForURL(/status=archived/);
    await expect.poll(() => page.locator("tr[data-rule-status=archived]").count()).toBe(1);
    expect(await page.locator("tr[data-rule]").count()).toBe(1);
    expect(await page.locator("tr[data-rule] td").nth(3).textContent()).toBe("always");
    await page.getByLabel("Level").selectOption("must");
    await expect.poll(() => page.locator("[data-empty]").textContent()).toContain("No archived rules in this project at level must.");

    await page.goto(`${served.baseUrl}/rules/${mustRule.id as string}`);
    expect(await page.locator("section[aria-label=Triggers] code").allTextContents()).toEqual(["packages/postgres/migrations/**", "modify"]);
    await page.getByRole("link", { name: "its lesson", exact: true }).click();
    await page.waitForURL(`${served.baseUrl}/lessons/${promoted.id as string}`);
    await checkPage();
    await page.goto(`${served.baseUrl}/rules/${archivedRule.id as string}`);
    expect(await page.locator("dl.facts").first().textContent()).toContain("Folded into the style guide.");
    expect(await page.locator("section[aria-label=Triggers] p").textContent()).toBe("To every change (always apply).");
    await checkPage("rule");
  });

  it("pages through a project's long list, and shows an empty list as such", async () => {
    await page.goto(`${served.baseUrl}/lessons`);
    await page.getByLabel("Project").selectOption({ label: "Bulk" });
    await page.waitForURL(new RegExp(`project=${bulk.id as string}`));
    await expect.poll(() => page.locator("tr[data-lesson]").count()).toBe(50);
    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => page.locator("tr[data-lesson]").count()).toBe(2);
    expect(await page.locator(".pagination").textContent()).toContain("Last page");
    await page.getByRole("link", { name: "First page" }).click();
    await expect.poll(() => page.locator("tr[data-lesson]").count()).toBe(50);
    await page.goto(`${served.baseUrl}/rules?project=${bulk.id as string}`);
    expect(await page.locator("[data-empty]").textContent()).toContain("No active rules in this project.");
    await checkPage();
  });

  it("names a bad filter's SVC_ code, and the catalogue's refusal of a person's write is why the pages have no buttons", async () => {
    const res = await page.goto(`${served.baseUrl}/lessons?status=forgotten`);
    expect(res?.status()).toBe(400);
    expect(await page.locator("[data-error-code]").getAttribute("data-error-code")).toBe("SVC_MALFORMED_REQUEST");
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The 400 of the page itself is the one console error Chromium reports.
    expect(problems.seen.filter((p) => !p.includes("status of 400"))).toEqual([]);
    problems.clear();
    // A person's session is not an agent: the session-state writes are refused it over REST, as on any edge.
    const promote = await fetch(`${served.baseUrl}/v1/lesson-candidates/${pendingReady.id as string}/promote`, { method: "POST", headers: sessionHeaders(served.baseUrl, owner.cookie), body: "{}" });
    expect(promote.status).toBe(403);
    expect(((await promote.json()) as Json).error.code).toBe("SVC_SCOPE_INSUFFICIENT");
  });

  it("fits a phone's width", async () => {
    await page.setViewportSize({ width: 360, height: 780 });
    for (const path of ["/lessons", `/lessons/${promoted.id as string}`, "/lesson-candidates", `/lesson-candidates/${pendingReady.id as string}`, "/rules", `/rules/${mustRule.id as string}`]) {
      await page.goto(`${served.baseUrl}${path}`);
      expect(await overflowsSideways(page), path).toBe(false);
    }
    await saveDocScreenshot(page, "phone-rule");
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(problems.seen).toEqual([]);
  });

  it("a viewer reads them too", async () => {
    const viewer = await seedPerson(served.service.deps, { workspaceId: owner.workspaceId, email: "vera@lessons.test", role: "viewer", password: "a viewer's long quiet river" });
    const context = await browser.newContext();
    const viewerPage = await context.newPage();
    await signInOnPage(viewerPage, served.baseUrl, { email: viewer.email, password: "a viewer's long quiet river", workspaceId: owner.workspaceId, cookie: "", totp: null, recoveryCodes: [], aiAccountId: null });
    await viewerPage.goto(`${served.baseUrl}/lessons`);
    expect(await viewerPage.locator("tr[data-lesson]").count()).toBe(3);
    await viewerPage.goto(`${served.baseUrl}/rules/${mustRule.id as string}`);
    expect(await viewerPage.locator("h1").textContent()).toBe(mustRule.title);
    await context.close();
  });

  it("a person of another workspace never sees them: their own empty pages, and 404 for this workspace's URLs", async () => {
    const context = await browser.newContext();
    const pageB = await context.newPage();
    const problemsB = watchPage(pageB);
    await signInOnPage(pageB, served.baseUrl, other);
    for (const path of ["/lessons", "/lesson-candidates", "/rules"]) {
      await pageB.goto(`${served.baseUrl}${path}`);
      expect(await pageB.locator("[data-empty]").textContent(), path).toContain("the workspace has no project");
      expect(await pageB.content()).not.toContain("Site rebuild");
    }
    expect(await seriousAxeViolations(pageB)).toEqual([]);
    expect(problemsB.seen).toEqual([]);
    for (const path of [`/lessons/${promoted.id as string}`, `/lesson-candidates/${pendingReady.id as string}`, `/rules/${mustRule.id as string}`, `/lessons?project=${project.id as string}`, `/rules?project=${project.id as string}`]) {
      const res = await context.request.get(`${served.baseUrl}${path}`, { headers: { Accept: "text/html" } });
      expect(res.status(), path).toBe(404);
      const html = await res.text();
      expect(html, path).toContain('data-error-code="SVC_RESOURCE_NOT_FOUND"');
      expect(html, path).not.toContain(promoted.title as string);
    }
    await context.close();
  });
});
