import type { CoreDeps, CredentialPrincipal } from "@agentq/core";
import { TEST_PUBLIC_BASE_URL } from "@agentq/core/testing";
import { createRestApp } from "../app.ts";
import type { RestLogger } from "../logger.ts";
import { fakeAuthenticator, fakePrincipal } from "./fake-authenticator.ts";
import { TEST_OPERATIONS } from "./test-operations.ts";

/** Bearer tokens of the test app. */
export const TOKENS = {
  sender: "op-sender",
  admin: "ad-admin",
  noScopes: "op-none",
} as const;

/** A logger that keeps what it is given, so tests can assert that faults were logged. */
export function recordingLogger(): RestLogger & { entries: { fields: Record<string, unknown>; message: string }[] } {
  const entries: { fields: Record<string, unknown>; message: string }[] = [];
  return { entries, error: (fields, message) => entries.push({ fields, message }) };
}

/** The REST app over the test operations, a fake authenticator and no stores. */
export function createTestApp() {
  const logger = recordingLogger();
  const tokens: Record<string, CredentialPrincipal> = {
    [TOKENS.sender]: fakePrincipal({ scopes: ["send"] }),
    [TOKENS.admin]: fakePrincipal({ tier: "administrative", scopes: ["manage_ai_accounts"] }),
    [TOKENS.noScopes]: fakePrincipal({ scopes: [] }),
  };
  // The test operations never touch the deps; the app reads only the service's address.
  const app = createRestApp({ publicBaseUrl: TEST_PUBLIC_BASE_URL } as CoreDeps, { operations: TEST_OPERATIONS, authenticator: fakeAuthenticator(tokens), logger });
  return { app, logger };
}

/** Headers of an authenticated JSON request. */
export function jsonHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...extra };
}
