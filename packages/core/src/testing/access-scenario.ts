import { createAuthenticator } from "../access/authenticate.ts";
import type { Authenticator } from "../access/authenticate.ts";
import { bootstrapWorkspace } from "../access/bootstrap-workspace.ts";
import type { BootstrapResult } from "../access/bootstrap-workspace.ts";
import type { AiAccount, Credential, CredentialPrincipal, Principal } from "../access/model.ts";
import { hashToken, newTokenSeal, tokenFromSeal } from "../access/token.ts";
import type { OperationContext } from "../operation.ts";
import { makeAccount, makeCredential } from "./access-fixtures.ts";
import type { InMemoryWorld } from "./create-in-memory-deps.ts";

/** A bootstrapped workspace in an in-memory world: its admin's token and principal. */
export interface AccessScenarioWorkspace extends BootstrapResult {
  /** The admin's principal as the authenticator builds it. */
  principal: CredentialPrincipal;
  /** `Authorization` header value of the admin credential. */
  authorization: string;
}

/**
 * Bootstraps a workspace in `world` (owner `<name>@example.test`) and authenticates its admin
 * credential with `authenticator` (a fresh one over the world when not given).
 */
export async function bootstrapScenarioWorkspace(world: InMemoryWorld, name: string, authenticator: Authenticator = createAuthenticator(world.deps)): Promise<AccessScenarioWorkspace> {
  const result = await bootstrapWorkspace(world.deps, { workspaceName: name, email: `${name}-${world.deps.ids.next().toLowerCase()}@example.test` });
  const authorization = `Bearer ${result.token}`;
  return { ...result, authorization, principal: await authenticator.authenticate(authorization) };
}

/**
 * Stores a credential with a real token for `account` directly (no use case, no audit row), so
 * tests can set up any state. Returns the record and its bearer token.
 */
export async function seedTokenCredential(world: InMemoryWorld, account: Pick<AiAccount, "id" | "workspaceId">, overrides: Partial<Omit<Credential, "tokenHash">> = {}): Promise<{ credential: Credential; token: string; authorization: string }> {
  const tier = overrides.tier ?? "operational";
  const token = tokenFromSeal(world.deps.secrets.pepper, tier, newTokenSeal());
  const credential = makeCredential(account, { createdAt: world.clock.now(), expiresAt: new Date(world.clock.now().getTime() + 86_400_000), ...overrides, tier, tokenHash: hashToken(world.deps.secrets.pepper, token) });
  await world.deps.stores.credentials.insert({ credential });
  return { credential, token, authorization: `Bearer ${token}` };
}

/** Stores an AI account directly (no use case, no audit row). */
export async function seedAccount(world: InMemoryWorld, workspaceId: string, overrides: Partial<AiAccount> = {}): Promise<AiAccount> {
  const account = makeAccount(workspaceId, { createdAt: world.clock.now(), updatedAt: world.clock.now(), ...overrides });
  const created = await world.deps.stores.accounts.create({ account });
  if (created.kind !== "created") throw new Error(`account name ${account.friendlyName} taken`);
  return account;
}

/** An operation context for `principal` (request id fresh, no idempotency key unless given). */
export function scenarioContext(world: InMemoryWorld, principal: Principal, p: { idempotencyKey?: string | null; fingerprint?: string } = {}): OperationContext {
  return { principal, requestId: `req-${world.deps.ids.next()}`, idempotencyKey: p.idempotencyKey ?? null, fingerprint: p.fingerprint ?? "fingerprint" };
}
