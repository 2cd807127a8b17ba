import { describe, expect, it } from "vitest";
import { publicBaseUrlOf, readEnv } from "./env.ts";

describe("readEnv", () => {
  it("defaults: port 8080 on 127.0.0.1, embedded PostgreSQL, a pool of 4 connections, the in-process rate limiter", () => {
    const env = readEnv({});
    expect(env).toMatchObject({ host: "127.0.0.1", port: 8080, databaseUrl: null, poolMax: 4, rateLimiter: "memory", publicBaseUrl: "http://127.0.0.1:8080" });
  });

  it("reads AGENTQ_PG_POOL_MAX and refuses what is not a count of connections", () => {
    expect(readEnv({ AGENTQ_PG_POOL_MAX: "12" }).poolMax).toBe(12);
    for (const bad of ["0", "-1", "2.5", "many", "1001"]) expect(() => readEnv({ AGENTQ_PG_POOL_MAX: bad })).toThrow(/AGENTQ_PG_POOL_MAX/);
  });

  it("refuses a malformed PORT, AGENTQ_PG_PORT or SVC_RATE_LIMITER", () => {
    expect(() => readEnv({ PORT: "http" })).toThrow(/PORT/);
    expect(() => readEnv({ AGENTQ_PG_PORT: "70000" })).toThrow(/AGENTQ_PG_PORT/);
    expect(() => readEnv({ SVC_RATE_LIMITER: "redis" })).toThrow(/SVC_RATE_LIMITER/);
  });

  it("PUBLIC_BASE_URL, when unset, is the server's own http://HOST:PORT with the port really bound (PORT=0), a wildcard HOST shown as 127.0.0.1 and IPv6 in brackets", () => {
    expect(publicBaseUrlOf(readEnv({ PORT: "0" }), 41234)).toBe("http://127.0.0.1:41234");
    expect(publicBaseUrlOf(readEnv({ HOST: "0.0.0.0", PORT: "8080" }), 8080)).toBe("http://127.0.0.1:8080");
    expect(publicBaseUrlOf(readEnv({ HOST: "::1", PORT: "9000" }), 9000)).toBe("http://[::1]:9000");
    expect(new URL(publicBaseUrlOf(readEnv({ HOST: "::1", PORT: "9000" }), 9000)).origin).toBe("http://[::1]:9000");
    expect(publicBaseUrlOf(readEnv({ HOST: "localhost", PORT: "0" }), 5000)).toBe("http://localhost:5000");
    // Set, it is what the clients use, whatever the socket: a proxy's address.
    expect(publicBaseUrlOf(readEnv({ PUBLIC_BASE_URL: "https://agentq.example/", PORT: "0" }), 41234)).toBe("https://agentq.example");
  });
});
