import { InProcessRateLimiter } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps } from "@agentq/core/testing";
import { describe, expect, it } from "vitest";
import { createRestApp } from "./app.ts";
import { call } from "./testing/call.ts";
import { recordingLogger } from "./testing/test-app.ts";

describe("rate-limit headers", () => {
  it("go on every authenticated response whatever its status, and a 429 carries Retry-After", async () => {
    const world = createInMemoryDeps();
    const app = createRestApp({ ...world.deps, rateLimiter: new InProcessRateLimiter() }, { logger: recordingLogger() });
    const admin = await bootstrapScenarioWorkspace(world, "alpha");

    const ok = await call(app, "GET", "/v1/me", { authorization: admin.authorization });
    expect(ok.status).toBe(200);
    const limit = Number(ok.headers.get("x-ratelimit-limit"));
    expect(limit).toBeGreaterThan(1);
    expect(Number(ok.headers.get("x-ratelimit-remaining"))).toBe(limit - 1);
    expect(Number(ok.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);

    // A refusal after authentication still reports the bucket.
    const refused = await call(app, "POST", "/v1/messages/send", { authorization: admin.authorization, key: "k", body: {} });
    expect(refused.status).toBe(403);
    expect(Number(refused.headers.get("x-ratelimit-remaining"))).toBe(limit - 2);

    // An unauthenticated request has no bucket.
    const anonymous = await call(app, "GET", "/v1/me");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("x-ratelimit-limit")).toBeNull();

    const rest = await Promise.all(Array.from({ length: limit - 2 }, () => call(app, "GET", "/v1/me", { authorization: admin.authorization })));
    expect(rest.every((r) => r.status === 200)).toBe(true);
    const limited = await call(app, "GET", "/v1/me", { authorization: admin.authorization });
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("SVC_RATE_LIMITED");
    expect(limited.body.error.details).toEqual(expect.objectContaining({ limit }));
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("cache-control")).toBe("no-store");
  });
});
