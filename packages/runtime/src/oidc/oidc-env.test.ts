import { describe, expect, it } from "vitest";
import { readEnv } from "../env.ts";

describe("SVC_OIDC_* settings", () => {
  it("are off without an issuer, and read with a default label of the issuer's host", () => {
    expect(readEnv({}).oidc).toBeNull();
    expect(readEnv({ SVC_OIDC_ISSUER: "https://accounts.example.com", SVC_OIDC_CLIENT_ID: "agentq", SVC_OIDC_CLIENT_SECRET: "s3cret" }).oidc).toEqual({ issuer: "https://accounts.example.com", clientId: "agentq", clientSecret: "s3cret", label: "accounts.example.com" });
    expect(readEnv({ SVC_OIDC_ISSUER: "https://id.example.org/realms/main", SVC_OIDC_CLIENT_ID: "agentq", SVC_OIDC_LABEL: "Example SSO" }).oidc).toEqual({ issuer: "https://id.example.org/realms/main", clientId: "agentq", clientSecret: null, label: "Example SSO" });
  });

  it.each([[{ SVC_OIDC_ISSUER: "https://accounts.example.com" }], [{ SVC_OIDC_CLIENT_ID: "agentq" }], [{ SVC_OIDC_ISSUER: "not a url", SVC_OIDC_CLIENT_ID: "agentq" }]])("refuses %j at start-up", (env) => {
    expect(() => readEnv(env)).toThrow(/SVC_OIDC_/);
  });
});
