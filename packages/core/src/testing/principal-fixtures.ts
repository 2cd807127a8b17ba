import type { AiAccount, CredentialPrincipal, Principal, Tier, Workspace } from "../access/model.ts";
import type { OperationContext } from "../operation.ts";
import type { Stores } from "../ports.ts";
import { fixtureId, makeAccount, makeCredential, makePerson, makeWorkspace } from "./access-fixtures.ts";

/** Every operational scope, for principals that should pass any operational route. */
export const ALL_OPERATIONAL_SCOPES = ["send", "validate", "get_pending", "ack", "nack", "list_recipients", "list_templates", "get_template", "get_policies", "acknowledge_policies", "manage_projects", "write_session_state", "view_audit_log"];

/** Creates a workspace (through the ports) and returns it. */
export async function seedTestWorkspace(stores: Stores, overrides: Partial<Workspace> = {}): Promise<Workspace> {
  const workspace = makeWorkspace(overrides);
  if ((await stores.workspaces.create({ workspace, owner: makePerson(workspace.id) })).kind !== "created") throw new Error("seedTestWorkspace: not created");
  return workspace;
}

/**
 * Creates an AI account in `workspace` with a credential (through the ports) and returns the
 * principal an edge would authenticate: every operational scope unless told otherwise.
 */
export async function seedPrincipal(stores: Stores, workspace: Workspace, opts: { friendlyName?: string; tier?: Tier; scopes?: string[]; account?: Partial<AiAccount> } = {}): Promise<CredentialPrincipal> {
  const account = makeAccount(workspace.id, { ...(opts.friendlyName ? { friendlyName: opts.friendlyName } : {}), ...opts.account });
  if ((await stores.accounts.create({ account })).kind !== "created") throw new Error("seedPrincipal: account not created");
  const credential = makeCredential(account, { tier: opts.tier ?? "operational", scopes: opts.scopes ?? ALL_OPERATIONAL_SCOPES });
  await stores.credentials.insert({ credential });
  return { workspace, account, credential };
}

/** The context of one call by `principal` (fresh request id; fingerprint and key as given). */
export function callContext(principal: Principal, opts: { idempotencyKey?: string | null; fingerprint?: string; requestId?: string; signal?: AbortSignal } = {}): OperationContext {
  return {
    principal,
    requestId: opts.requestId ?? `req-${fixtureId()}`,
    idempotencyKey: opts.idempotencyKey ?? null,
    fingerprint: opts.fingerprint ?? "0".repeat(64),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
}
