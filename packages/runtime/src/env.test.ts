import { describe, expect, it } from "vitest";
import { auditLogKeys } from "@agentq/core";
import { publicBaseUrlOf, readEnv } from "./env.ts";
import { deriveSecrets } from "./secrets.ts";

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

  it("reads SVC_LOG_PREVIOUS_KEYS as verifier keys, and refuses an entry that is not one", () => {
    const old = auditLogKeys({ secrets: deriveSecrets("an-earlier-server-secret-0123456789abcdef"), publicBaseUrl: "https://queue.example.com" }).signer.verifierKey;
    const older = auditLogKeys({ secrets: deriveSecrets("an-even-older-server-secret-0123456789ab"), publicBaseUrl: "https://queue.example.com" }).signer.verifierKey;
    expect(readEnv({}).previousLogKeys).toEqual([]);
    expect(readEnv({ SVC_LOG_PREVIOUS_KEYS: ` ${old}, ${older}\n` }).previousLogKeys).toEqual([old, older]);
    expect(() => readEnv({ SVC_LOG_PREVIOUS_KEYS: `${old},queue.example.com/agentq+00000000+AAAA` })).toThrow(/SVC_LOG_PREVIOUS_KEYS/);
  });

  it("derives a distinct log key from each server secret, the same in every process", () => {
    const a = deriveSecrets("server-secret-one-0123456789abcdef0123456789");
    expect(a.logSeed).toHaveLength(32);
    expect(a.logSeed).not.toEqual(a.pepper);
    expect(deriveSecrets("server-secret-one-0123456789abcdef0123456789").logSeed).toEqual(a.logSeed);
    expect(deriveSecrets("server-secret-two-0123456789abcdef0123456789").logSeed).not.toEqual(a.logSeed);
  });
});
