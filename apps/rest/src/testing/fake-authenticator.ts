import { DomainError } from "@agentq/core";
import type { AnyScope, CredentialPrincipal, Tier } from "@agentq/core";

/** A principal for tests of the REST edge alone (no stores behind it). */
export function fakePrincipal(p: { tier?: Tier; scopes?: readonly AnyScope[]; workspaceId?: string } = {}): CredentialPrincipal {
  const at = new Date("2026-01-01T00:00:00.000Z");
  const workspaceId = p.workspaceId ?? "01JTESTWORKSPACE0000000000";
  return {
    workspace: { id: workspaceId, name: "ws", state: "active", maxDeliveries: 10, createdAt: at },
    account: { id: "01JTESTACCOUNT000000000000", workspaceId, friendlyName: "tester", state: "active", createdAt: at, updatedAt: at, lastActiveAt: null },
    credential: {
      id: "01JTESTCREDENTIAL000000000", workspaceId, aiAccountId: "01JTESTACCOUNT000000000000", tier: p.tier ?? "operational", scopes: [...(p.scopes ?? [])],
      name: "test", state: "active", tokenHash: "0".repeat(64), expiresAt: null, projectId: null, createdAt: at, revokedAt: null, rotatedFromId: null, rotatedToId: null, lastUsedAt: null,
    },
  };
}

/**
 * An authenticator over a fixed token table: `Bearer <token>` of a known token gives its
 * principal, anything else SVC_UNAUTHENTICATED (like the real one, one code for every refusal).
 */
export function fakeAuthenticator(tokens: Readonly<Record<string, CredentialPrincipal>>): { authenticate(header: string | null): Promise<CredentialPrincipal> } {
  return {
    async authenticate(header) {
      const token = header?.startsWith("Bearer ") ? header.slice("Bearer ".length) : undefined;
      const principal = token === undefined ? undefined : tokens[token];
      if (principal === undefined) throw new DomainError("SVC_UNAUTHENTICATED", "The request does not carry a valid credential.");
      return principal;
    },
  };
}
