import { beforeEach, describe, expect, it } from "vitest";
import type { PersonPrincipal, Role } from "../access/model.ts";
import { isDomainError } from "../errors.ts";
import { createMessagingScenario, type MessagingScenario } from "../testing/messaging-scenario.ts";
import { newCodeVerifier, registerTestClient, TEST_PUBLIC_BASE_URL, TEST_REDIRECT_URI } from "../testing/oauth-flow.ts";
import { checkAuthorizationRequest, type AuthorizationRequest, type ParamValues } from "./authorization-requests.ts";
import { approveAuthorization, checkConsentToken, consentToken, mayApproveConnections, proposedAccountName } from "./consent.ts";
import { oauthEndpoints } from "./endpoints.ts";
import type { OAuthClient } from "./model.ts";
import { s256Challenge } from "./secrets.ts";

const endpoints = oauthEndpoints(TEST_PUBLIC_BASE_URL);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "none";
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
}

describe("the authorization request and the consent decision (core, in memory)", () => {
  let s: MessagingScenario;
  let client: OAuthClient;
  const person = (role: Role, sessionId = "01HZZZZZZZZZZZZZZZZZZZZZZZ"): PersonPrincipal => {
    const now = new Date();
    return {
      kind: "person",
      workspace: s.alice.workspace,
      person: { id: "01HPERSON0000000000000000A", workspaceId: s.alice.workspace.id, email: "p@example.test", displayName: null, role, passwordHash: null, mfaEnabledAt: null, createdAt: now },
      session: { id: sessionId, workspaceId: s.alice.workspace.id, personId: "01HPERSON0000000000000000A", stage: "active", tokenHash: "", createdWithMfa: false, createdAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + 3_600_000), stepUpUntil: null, endedAt: null },
    };
  };
  const values = (extra: Record<string, string> = {}): ParamValues => {
    const all: Record<string, string> = { response_type: "code", client_id: client.id, redirect_uri: TEST_REDIRECT_URI, code_challenge: s256Challenge(newCodeVerifier()), code_challenge_method: "S256", state: "xyz", ...extra };
    return Object.fromEntries(Object.entries(all).map(([k, v]) => [k, [v]]));
  };
  const checked = async (extra: Record<string, string> = {}): Promise<AuthorizationRequest> => {
    const r = await checkAuthorizationRequest(s.world.deps, endpoints, values(extra));
    if (r.kind !== "ok") throw new Error(`not ok: ${r.kind}`);
    return r.request;
  };

  beforeEach(async () => {
    s = await createMessagingScenario();
    client = await registerTestClient(s.world.deps);
  });

  it("matches a loopback redirect URI on any port, and answers a missing PKCE at the trusted redirect URI", async () => {
    const anyPort = await checkAuthorizationRequest(s.world.deps, endpoints, values({ redirect_uri: "http://127.0.0.1:1234/callback" }));
    expect(anyPort.kind).toBe("ok");
    const otherPath = await checkAuthorizationRequest(s.world.deps, endpoints, values({ redirect_uri: "http://127.0.0.1:1234/elsewhere" }));
    expect(otherPath.kind).toBe("show");
    const plain = await checkAuthorizationRequest(s.world.deps, endpoints, values({ code_challenge_method: "plain" }));
    expect(plain.kind).toBe("redirect");
    if (plain.kind === "redirect") expect(new URL(plain.location).searchParams.get("error")).toBe("invalid_request");
  });

  it("lets owners and admins approve and refuses a viewer in the core, issuing nothing", async () => {
    expect([mayApproveConnections("owner"), mayApproveConnections("admin"), mayApproveConnections("viewer")]).toEqual([true, true, false]);
    const request = await checked();
    const refused = approveAuthorization(s.world.deps, endpoints, { principal: person("viewer"), request, account: { kind: "existing", aiAccountId: s.alice.account.id }, requestId: "r1" });
    expect(await codeOf(refused)).toBe("SVC_TIER_INSUFFICIENT");
    const approved = await approveAuthorization(s.world.deps, endpoints, { principal: person("admin"), request, account: { kind: "existing", aiAccountId: s.alice.account.id }, requestId: "r2" });
    const location = new URL(approved.location);
    expect(location.searchParams.get("code")).toMatch(/^agq_ac_/);
    expect(location.searchParams.get("state")).toBe("xyz");
    expect(location.searchParams.get("iss")).toBe(endpoints.issuer);
  });

  it("refuses an approval in a frozen workspace, and for a frozen AI account", async () => {
    const request = await checked();
    const frozen = { ...person("owner"), workspace: { ...s.alice.workspace, state: "frozen" as const } };
    expect(await codeOf(approveAuthorization(s.world.deps, endpoints, { principal: frozen, request, account: { kind: "new", friendlyName: "x-agent" }, requestId: "r" }))).toBe("SVC_FROZEN");
    await s.world.deps.stores.accounts.transition({ workspaceId: s.alice.workspace.id, accountId: s.bob.account.id, from: ["active"], to: "frozen", now: new Date() });
    expect(await codeOf(approveAuthorization(s.world.deps, endpoints, { principal: person("owner"), request, account: { kind: "existing", aiAccountId: s.bob.account.id }, requestId: "r" }))).toBe("SVC_RESOURCE_CONFLICT");
  });

  it("binds the consent token to the session and to every shown parameter", async () => {
    const request = await checked();
    const token = consentToken(s.world.deps, person("owner"), request);
    expect(() => checkConsentToken(s.world.deps, person("owner"), request, token)).not.toThrow();
    const cases: Array<[PersonPrincipal, AuthorizationRequest]> = [
      [person("owner", "01HOTHERSESSION00000000000"), request],
      [person("owner"), { ...request, scopes: ["send"] }],
      [person("owner"), { ...request, state: "other" }],
      [person("owner"), { ...request, redirectUri: "http://127.0.0.1:9/callback" }],
    ];
    for (const [principal, r] of cases) expect(await codeOf(Promise.resolve().then(() => checkConsentToken(s.world.deps, principal, r, token)))).toBe("SVC_CSRF_REJECTED");
  });

  it("proposes a valid AI account name from the client's name", () => {
    expect(proposedAccountName("Claude Code")).toBe("claude-code");
    expect(proposedAccountName("  ✨ ")).toBe("mcp-client");
    expect(proposedAccountName(null)).toBe("mcp-client");
    expect(proposedAccountName("VS Code (Insiders)")).toBe("vs-code-insiders");
  });
});
