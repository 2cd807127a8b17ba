import { ERROR_CATALOGUE, OPERATIONS, type ErrorCode } from "@agentq/core";
import { InMemoryMailer, TEST_SECRETS } from "@agentq/core/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { catalogueRoutes, hostileRequests, PLAIN_ROUTES, plainRoutes, schemaValue, type HostileRequest, type RouteUnderTest, type SchemaLike } from "@agentq/rest/testing/hostile";
import { A_NAMES, AcceptingTransport, buildWorkspaceRecords, PATH_FIXTURES, plausibleInput, type WorkspaceRecords } from "@agentq/rest/testing/matrix";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";
import { composedMatrixTarget } from "./testing/matrix-target.ts";
import { seedPerson } from "./testing/people.ts";

// Issue 25 (DESIGN §2c, "a request within the documented limits never yields a 5xx"): for every
// operation of the catalogue (derived from it: a new operation joins by being in it), every
// hand-written REST route (from its OpenAPI description) and the OAuth endpoints, requests whose
// inputs come from the route's own schema at the edges of what it documents: strings at
// maxLength or carrying U+0000 and lone surrogates at random places, arrays at maxItems, deep and
// wide free-form JSON, in the body, the query string and the path. Each answer is a 2xx (3xx for
// a redirecting route) or a 4xx whose SVC_ code has that status in the error catalogue; never a
// 5xx. Against the composed server over PostgreSQL, in process, on a workspace with a record of
// every kind (the isolation matrix's world), half the requests starting from a valid input.

const RUNS_PER_ROUTE = 10;
const PASSWORD = "a long and quiet river";
const OWNER_EMAIL = "owner-person@hostile-suite.test";

/** Routes that end or remove what later routes need (the callers' sessions, the project): run last. */
const DESTRUCTIVE = /revoke|archive|delete|purge|freeze|close|disconnect|remove|erase|sign_out/;
const byDestructiveLast = (routes: RouteUnderTest[]) => [...routes.filter((r) => !DESTRUCTIVE.test(r.name)), ...routes.filter((r) => DESTRUCTIVE.test(r.name))];

/** Valid inputs of the people's routes, to start from (the rest of the catalogue's come from the isolation matrix). */
const PEOPLE_INPUTS: Readonly<Record<string, Record<string, unknown>>> = {
  sign_up: { email: "new-person@hostile-suite.test", password: PASSWORD, workspace_name: "Suite" },
  sign_in: { email: OWNER_EMAIL, password: PASSWORD },
  request_password_reset: { email: OWNER_EMAIL },
  confirm_password_reset: { token: "agq_pr_0000", password: PASSWORD },
};

/** The OAuth endpoints (their own app, outside the REST route table), with the parameters RFC 7591 and RFC 6749 give them. */
const OAUTH_ROUTES: readonly { path: string; form: boolean; schema: SchemaLike }[] = [
  {
    path: "/oauth/register",
    form: false,
    schema: {
      type: "object",
      required: ["redirect_uris"],
      properties: {
        redirect_uris: { type: "array", maxItems: 10, items: { anyOf: [{ const: "http://127.0.0.1/callback" }, { const: "https://client.example/cb" }, { type: "string", maxLength: 2000 }] } },
        client_name: { type: "string", maxLength: 200 },
        grant_types: { type: "array", maxItems: 5, items: { anyOf: [{ const: "authorization_code" }, { const: "refresh_token" }, { type: "string", maxLength: 100 }] } },
        response_types: { type: "array", maxItems: 5, items: { type: "string", maxLength: 100 } },
        scope: { type: "string", maxLength: 1000 },
        contacts: { type: "array", maxItems: 20, items: { type: "string", maxLength: 320 } },
        client_uri: { type: "string", maxLength: 2000 },
        logo_uri: { type: "string", maxLength: 2000 },
        software_id: { type: "string", maxLength: 200 },
        token_endpoint_auth_method: { type: "string", maxLength: 100 },
      },
      additionalProperties: true,
    },
  },
  {
    path: "/oauth/token",
    form: true,
    schema: {
      type: "object",
      properties: {
        grant_type: { anyOf: [{ const: "authorization_code" }, { const: "refresh_token" }, { type: "string", maxLength: 100 }] },
        code: { type: "string", maxLength: 200 },
        refresh_token: { type: "string", maxLength: 200 },
        client_id: { type: "string", maxLength: 100 },
        redirect_uri: { type: "string", maxLength: 2000 },
        code_verifier: { type: "string", maxLength: 128 },
        resource: { type: "string", maxLength: 2000 },
        scope: { type: "string", maxLength: 1000 },
      },
    },
  },
  {
    path: "/oauth/revoke",
    form: true,
    schema: { type: "object", properties: { token: { type: "string", maxLength: 200 }, token_type_hint: { type: "string", maxLength: 50 }, client_id: { type: "string", maxLength: 100 } } },
  },
];

describe("hostile input at every route (PostgreSQL): a 2xx or a 4xx SVC_ code, never a 5xx", () => {
  let db: TestSchema;
  let service: ComposedService;
  let records: WorkspaceRecords;
  let sessionCookie = "";
  let viewerId = "";
  let written = "";

  const request = (path: string, init: RequestInit) => service.fetch(new Request(`http://agentq.test${path}`, init));

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    service = composeService({
      sql: db.sql,
      secrets: TEST_SECRETS,
      publicBaseUrl: "http://agentq.test",
      logger: createLogger("info", { write: (line: string) => void (written += line) }),
      rateLimiter: "off",
      mailer: new InMemoryMailer(),
      webhooks: { transport: new AcceptingTransport() },
    });
    records = await buildWorkspaceRecords(composedMatrixTarget(service, db.sql), A_NAMES);
    await seedPerson(service.deps, { workspaceId: records.admin.workspaceId, email: OWNER_EMAIL, role: "owner", password: PASSWORD });
    viewerId = (await seedPerson(service.deps, { workspaceId: records.admin.workspaceId, email: "viewer@hostile-suite.test", role: "viewer", password: PASSWORD })).id;
    const res = await service.fetch(new Request("http://agentq.test/v1/auth/sign-in", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email: OWNER_EMAIL, password: PASSWORD }) }));
    sessionCookie = (res.headers.getSetCookie()[0] ?? "").split(";")[0] ?? "";
    expect(sessionCookie).toMatch(/=./);
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await db?.drop();
  });

  /** Ids of existing records for each path parameter, never the suite's own callers. */
  function pathSeeds(): Record<string, string[]> {
    const own = new Set([records.admin.accountId, records.admin.credentialId, records.sender.id, records.sender.credentialId]);
    const seeds: Record<string, string[]> = { person_id: [viewerId], name: ["note", "directive"] };
    for (const [param, fixtures] of Object.entries(PATH_FIXTURES)) seeds[param] = fixtures(records).map((r) => r.id).filter((id) => !own.has(id));
    return seeds;
  }

  function authHeaders(route: RouteUnderTest): Record<string, string> {
    switch (route.caller) {
      case "administrative":
        return { Authorization: records.admin.authorization };
      case "operational":
        return { Authorization: records.sender.authorization };
      case "session":
        return { Cookie: sessionCookie, Origin: "http://agentq.test" };
      default:
        return {};
    }
  }

  /** Why `res` breaks the rule, or null: a 5xx, or a 4xx that is not the error envelope with a catalogued code of that status. */
  async function violation(res: Response, oauth = false): Promise<string | null> {
    const text = await res.text();
    if (res.status >= 500) return `${res.status} ${text.slice(0, 300)}`;
    if (res.status < 400) return null;
    let body: { error?: unknown } | null = null;
    try {
      body = JSON.parse(text) as { error?: unknown };
    } catch {
      return `${res.status} without a JSON body: ${text.slice(0, 200)}`;
    }
    // The OAuth endpoints answer protocol refusals as RFC 6749 errors, the rest in the envelope.
    if (oauth && typeof body.error === "string") return null;
    const code = (body.error as { code?: string } | undefined)?.code;
    if (code === undefined || !(code in ERROR_CATALOGUE)) return `${res.status} without an SVC_ code: ${text.slice(0, 200)}`;
    if (ERROR_CATALOGUE[code as ErrorCode].status !== res.status) return `${res.status} with ${code}, whose status is ${ERROR_CATALOGUE[code as ErrorCode].status}`;
    return null;
  }

  const catalogue = byDestructiveLast(catalogueRoutes(OPERATIONS));
  const plain = byDestructiveLast(plainRoutes(PLAIN_ROUTES));

  it("covers every catalogue operation and every hand-written REST route", () => {
    expect(new Set(catalogue.map((r) => r.name))).toEqual(new Set(OPERATIONS.map((op) => op.name)));
    expect(plain.map((r) => r.path)).toEqual(["/v1/version", "/v1/openapi.json", "/.well-known/agentq-log-key"]);
    expect(catalogue.map((r) => r.path)).toEqual(expect.arrayContaining(["/v1/auth/sign-up", "/v1/auth/sign-in", "/v1/auth/sign-out", "/v1/auth/oidc/start", "/v1/auth/oidc/callback", "/v1/auth/password-reset", "/v1/people", "/v1/people/{person_id}", "/v1/me/export"]));
  });

  async function check(route: RouteUnderTest, seeds: Parameters<typeof hostileRequests>[1]): Promise<void> {
    const faultsBefore = written.split("\n").filter((l) => l.includes('"level":50')).length;
    await fc.assert(
      fc.asyncProperty(hostileRequests(route, seeds), async (req: HostileRequest) => {
        const res = await request(req.path, { method: req.method, headers: { ...req.headers, ...authHeaders(route) }, body: req.body, redirect: "manual" });
        const problem = await violation(res);
        expect(problem, `${req.method} ${req.path.slice(0, 200)} ${String(req.body).slice(0, 300)}`).toBeNull();
      }),
      { numRuns: RUNS_PER_ROUTE },
    );
    expect(written.split("\n").filter((l) => l.includes('"level":50')).slice(faultsBefore)).toEqual([]);
  }

  it.each(catalogue.map((r) => [r.label, r] as const))("%s", async (_label, route) => {
    const op = OPERATIONS.find((o) => o.name === route.name);
    const plausible = PEOPLE_INPUTS[route.name] ?? (op === undefined ? undefined : plausibleInput(op, records));
    await check(route, { pathValues: pathSeeds(), fixed: { wait: "PT0S" }, ...(plausible === undefined ? {} : { plausible }) });
  }, 60_000);

  it.each(plain.map((r) => [r.label, r] as const))("%s", async (_label, route) => {
    const plausible = PEOPLE_INPUTS[route.name];
    await check(route, { pathValues: pathSeeds(), ...(plausible === undefined ? {} : { plausible }) });
  }, 60_000);

  it.each(OAUTH_ROUTES.map((r) => [r.path, r] as const))("POST %s", async (_path, route) => {
    await fc.assert(
      fc.asyncProperty(schemaValue(route.schema), async (value) => {
        const fields = value as Record<string, unknown>;
        const body = route.form
          ? new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, typeof v === "string" ? v : JSON.stringify(v)])).toString()
          : JSON.stringify(fields);
        const res = await request(route.path, { method: "POST", headers: { "Content-Type": route.form ? "application/x-www-form-urlencoded" : "application/json" }, body });
        expect(await violation(res, true), `${route.path} ${body.slice(0, 300)}`).toBeNull();
      }),
      { numRuns: RUNS_PER_ROUTE * 2 },
    );
  }, 60_000);
});
