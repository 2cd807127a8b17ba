import { isUlid, requestFingerprint } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { createTestApp, jsonHeaders, TOKENS } from "./testing/test-app.ts";

interface Envelope {
  error: { code: string; message: string; details?: Record<string, unknown> };
  request_id: string;
}

async function expectEnvelope(res: Response, status: number, code: string): Promise<Envelope> {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await res.json()) as Envelope;
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  expect(body.request_id).toBe(res.headers.get("x-request-id"));
  return body;
}

describe("conventions on every route", () => {
  it("sends a fresh ULID X-Request-Id on every response, successes included", async () => {
    const { app } = createTestApp();
    const a = await app.request("/v1/test/public");
    const b = await app.request("/v1/test/public", { headers: { "X-Request-Id": "client-chosen" } });
    expect(a.status).toBe(200);
    expect(isUlid(a.headers.get("x-request-id"))).toBe(true);
    expect(isUlid(b.headers.get("x-request-id"))).toBe(true);
    expect(b.headers.get("x-request-id")).not.toBe("client-chosen");
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  it("answers an unknown path 404 SVC_ROUTE_NOT_FOUND in the envelope", async () => {
    const { app } = createTestApp();
    await expectEnvelope(await app.request("/v1/nothing-here"), 404, "SVC_ROUTE_NOT_FOUND");
    await expectEnvelope(await app.request("/"), 404, "SVC_ROUTE_NOT_FOUND");
    await expectEnvelope(await app.request("/v1/test/items/a/b/c", { method: "POST" }), 404, "SVC_ROUTE_NOT_FOUND");
  });

  it("answers a known path with a wrong method 405 SVC_METHOD_NOT_ALLOWED with Allow", async () => {
    const { app } = createTestApp();
    const res = await app.request("/v1/test/items", { method: "POST", headers: jsonHeaders(TOKENS.sender), body: "{}" });
    await expectEnvelope(res, 405, "SVC_METHOD_NOT_ALLOWED");
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    const put = await app.request("/v1/test/items/x1", { method: "PUT" });
    await expectEnvelope(put, 405, "SVC_METHOD_NOT_ALLOWED");
    expect(put.headers.get("allow")).toBe("DELETE");
    const version = await app.request("/v1/version", { method: "DELETE" });
    await expectEnvelope(version, 405, "SVC_METHOD_NOT_ALLOWED");
    expect(version.headers.get("allow")).toBe("GET, HEAD");
  });

  it("answers HEAD on a GET route like GET without a body", async () => {
    const { app } = createTestApp();
    const res = await app.request("/v1/test/items", { method: "HEAD", headers: { Authorization: `Bearer ${TOKENS.sender}` } });
    expect(res.status).toBe(200);
    expect(isUlid(res.headers.get("x-request-id"))).toBe(true);
    expect(await res.text()).toBe("");
  });

  it("never leaks an unknown error: 503 SVC_SERVICE_UNAVAILABLE, logged with the request id", async () => {
    const { app, logger } = createTestApp();
    for (const id of ["error", "string"]) {
      const res = await app.request(`/v1/test/items/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${TOKENS.sender}` } });
      const text = await res.clone().text();
      const body = await expectEnvelope(res, 503, "SVC_SERVICE_UNAVAILABLE");
      expect(text).not.toContain("SECRET-42");
      expect(logger.entries.some((e) => e.fields.request_id === body.request_id)).toBe(true);
    }
    expect(logger.entries).toHaveLength(2);
  });

  it("turns a DomainError's retryAfterSeconds into Retry-After", async () => {
    const { app, logger } = createTestApp();
    const res = await app.request("/v1/test/items/m1/nack", { method: "POST", headers: jsonHeaders(TOKENS.sender), body: "{}" });
    await expectEnvelope(res, 429, "SVC_NACK_RATE_LIMITED");
    expect(res.headers.get("retry-after")).toBe("7");
    expect(logger.entries).toHaveLength(0);
  });

  it("refuses a missing or unknown credential with 401 SVC_UNAUTHENTICATED, and authorizes by tier and scope", async () => {
    const { app } = createTestApp();
    const missing = await app.request("/v1/test/items");
    await expectEnvelope(missing, 401, "SVC_UNAUTHENTICATED");
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="agentq"');
    for (const authorization of ["Bearer nope", "Basic abc", `Bearer ${TOKENS.sender}x`]) {
      const unusable = await app.request("/v1/test/items", { headers: { Authorization: authorization } });
      await expectEnvelope(unusable, 401, "SVC_UNAUTHENTICATED");
      expect(unusable.headers.get("www-authenticate")).toBe('Bearer realm="agentq", error="invalid_token"');
    }
    // Only a 401 challenges.
    expect((await app.request("/v1/test/items/a/echo", { method: "POST", headers: jsonHeaders(TOKENS.noScopes), body: "{}" })).headers.get("www-authenticate")).toBeNull();
    await expectEnvelope(await app.request("/v1/test/items/a/echo", { method: "POST", headers: jsonHeaders(TOKENS.noScopes), body: "{}" }), 403, "SVC_SCOPE_INSUFFICIENT");
    await expectEnvelope(await app.request("/v1/test/items/a/freeze", { method: "POST", headers: jsonHeaders(TOKENS.sender, { "Idempotency-Key": "k" }) }), 403, "SVC_TIER_INSUFFICIENT");
  });
});

describe("operation routes derived from the catalogue", () => {
  it("assembles the input from body, declared query and path parameters (the path wins)", async () => {
    const { app } = createTestApp();
    const res = await app.request("/v1/test/items/it%2D1/echo?mode=fast&ignored=1", {
      method: "POST",
      headers: jsonHeaders(TOKENS.sender),
      body: JSON.stringify({ note: "hi", item_id: "from-body" }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { input: unknown; request_id: string };
    expect(body.input).toEqual({ note: "hi", item_id: "it-1", mode: "fast" });
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("passes paging parameters through as strings and refuses a repeated one", async () => {
    const { app } = createTestApp();
    const auth = { Authorization: `Bearer ${TOKENS.sender}` };
    const res = await app.request("/v1/test/items?limit=500&cursor=abc&other=x", { headers: auth });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { query: unknown }).query).toEqual({ limit: "500", cursor: "abc" });
    const repeated = await expectEnvelope(await app.request("/v1/test/items?limit=1&limit=2", { headers: auth }), 400, "SVC_MALFORMED_REQUEST");
    expect(repeated.error.details).toEqual({ field: "limit" });
  });

  it("validates the input against the operation's schema (400 SVC_MALFORMED_REQUEST)", async () => {
    const { app } = createTestApp();
    await expectEnvelope(await app.request("/v1/test/items/a/echo", { method: "POST", headers: jsonHeaders(TOKENS.sender), body: JSON.stringify({ note: 5 }) }), 400, "SVC_MALFORMED_REQUEST");
  });

  it("passes the Idempotency-Key and the fingerprint over method, path and canonical body", async () => {
    const { app } = createTestApp();
    const res = await app.request("/v1/test/items/a/echo", { method: "POST", headers: jsonHeaders(TOKENS.sender, { "Idempotency-Key": "key-1" }), body: '{"note":"x","nested":{"b":1,"a":2}}' });
    const body = (await res.json()) as { idempotency_key: string; fingerprint: string };
    expect(body.idempotency_key).toBe("key-1");
    expect(body.fingerprint).toBe(requestFingerprint({ method: "POST", path: "/v1/test/items/a/echo", body: { nested: { a: 2, b: 1 }, note: "x" } }));
  });

  it("requires the key where the operation says so, and read-only routes ignore it", async () => {
    const { app } = createTestApp();
    await expectEnvelope(await app.request("/v1/test/items/a/freeze", { method: "POST", headers: jsonHeaders(TOKENS.admin) }), 400, "SVC_IDEMPOTENCY_KEY_REQUIRED");
    const ok = await app.request("/v1/test/items/a/freeze", { method: "POST", headers: { Authorization: `Bearer ${TOKENS.admin}`, "Idempotency-Key": "k1" } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ item_id: "a" });
    const read = await app.request("/v1/test/items", { headers: { Authorization: `Bearer ${TOKENS.sender}`, "Idempotency-Key": "" } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { idempotency_key: unknown }).idempotency_key).toBeNull();
  });

  it("serves public operations without a credential", async () => {
    const { app } = createTestApp();
    const res = await app.request("/v1/test/public");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
