import { approveForTest, createMessagingScenario, registerTestClient, TEST_REDIRECT_URI } from "@agentq/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createOAuthApp } from "./create-oauth-app.ts";

// Bad input at the OAuth endpoints: random methods, paths, content types and bodies (form and
// JSON, with real client ids, codes and tokens mixed in) never give a server fault, and every
// refusal is an OAuth error object or the SVC_ envelope.
describe("random requests at the OAuth endpoints", () => {
  it("never get a 5xx; every 4xx names its error", async () => {
    const s = await createMessagingScenario();
    // Every in-process request shares the address "unknown": lift the per-address registration
    // limit here (its own test is apps/server/src/throttles.pg.test.ts) so that random bodies do
    // not use it up before a valid registration comes along.
    s.world.deps.stores.anonymousLimits = { hit: async (p) => ({ count: 1, windowEndsAt: new Date(p.now.getTime() + p.windowMs) }), purgeBefore: async () => 0 };
    const unexpected: unknown[] = [];
    const app = createOAuthApp(s.world.deps, { onUnexpectedError: (e) => unexpected.push(e) });
    const client = await registerTestClient(s.world.deps);
    const { code, verifier } = await approveForTest(s.world.deps, { client, workspaceId: s.alice.workspace.id, aiAccountId: s.alice.account.id });
    const keys = ["grant_type", "client_id", "code", "redirect_uri", "code_verifier", "refresh_token", "scope", "resource", "token", "token_type_hint", "redirect_uris", "client_name", "grant_types", "response_types", "token_endpoint_auth_method"];
    const values = fc.oneof(
      fc.constantFrom("authorization_code", "refresh_token", "password", client.id, "01JZZZZZZZZZZZZZZZZZZZZZZZ", code, verifier, TEST_REDIRECT_URI, "http://127.0.0.1:8080/mcp", "agq_rt_" + "A".repeat(43), "agq_op_" + "B".repeat(43), "send ack", "cursor://x/cb", "javascript:alert(1)", ""),
      fc.string({ maxLength: 60 }),
      fc.string({ unit: "grapheme", maxLength: 20 }),
    );
    const jsonValue = fc.oneof(values, fc.array(values, { maxLength: 4 }), fc.integer(), fc.constant(null), fc.dictionary(fc.constantFrom(...keys), values, { maxKeys: 3 }));
    const formBody = fc.array(fc.tuple(fc.constantFrom(...keys, "x"), values), { maxLength: 8 }).map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&"));
    const jsonBody = fc.oneof(fc.dictionary(fc.constantFrom(...keys), jsonValue, { maxKeys: 8 }).map((o) => JSON.stringify(o)), fc.string({ maxLength: 80 }), fc.constant("[1,2]"), fc.constant('{"redirect_uris":["' + TEST_REDIRECT_URI + '"]}'));
    const request = fc.record({
      method: fc.constantFrom("GET", "POST", "POST", "POST", "PUT", "DELETE", "OPTIONS"),
      path: fc.constantFrom("/oauth/register", "/oauth/token", "/oauth/revoke", "/.well-known/oauth-authorization-server", "/oauth/", "/oauth/token/x"),
      type: fc.constantFrom("application/x-www-form-urlencoded", "application/json", "application/json; charset=utf-8", "text/plain", "multipart/form-data", undefined),
      encoding: fc.constantFrom(undefined, undefined, undefined, "gzip"),
      authorization: fc.constantFrom(undefined, undefined, "Basic " + btoa(`${client.id}:x`), "Basic !!!", "Basic " + btoa("%E0%A4%A:x"), "Bearer nothing"),
      body: fc.oneof(formBody, jsonBody, fc.constantFrom(...["authorization_code", "refresh_token"].map((g) => `grant_type=${g}&client_id=01JZZZZZZZZZZZZZZZZZZZZZZZ&code=x&refresh_token=y`))),
    });
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.type !== undefined) headers["Content-Type"] = r.type;
        if (r.encoding !== undefined) headers["Content-Encoding"] = r.encoding;
        if (r.authorization !== undefined) headers.Authorization = r.authorization;
        const withBody = r.method !== "GET" && r.method !== "OPTIONS";
        const res = await app.request(r.path, { method: r.method, headers, ...(withBody ? { body: r.body } : {}) });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        expect(res.status, `${r.method} ${r.path} ${r.body}`).toBeLessThan(500);
        if (res.status >= 400) {
          const body = (await res.json()) as { error: unknown };
          expect(typeof body.error === "string" || typeof (body.error as { code?: unknown }).code === "string", JSON.stringify(body)).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    expect(unexpected).toEqual([]);
    for (const status of [200, 201, 400, 401, 404, 405]) expect(statuses.get(status) ?? 0, `responses with ${status}`).toBeGreaterThan(0);
  }, 120_000);
});
