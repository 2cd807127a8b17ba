import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import type { Stores } from "../ports.ts";
import { accessAuditEntry } from "./access-audit.ts";
import type { AiAccount, AiAccountState, Credential, Principal } from "./model.ts";
import { FRIENDLY_NAME_PATTERN } from "./model.ts";

/** The caller of an AI-account change: always a principal of the workspace. */
export interface AccessCaller {
  principal: Principal;
  requestId: string;
}

function checkFriendlyName(name: string): void {
  if (!FRIENDLY_NAME_PATTERN.test(name)) {
    throw malformed("friendly_name must be 1 to 63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit.", { field: "friendly_name" });
  }
}

function nameConflict(name: string): DomainError {
  return new DomainError("SVC_RESOURCE_CONFLICT", `An AI account named ${name} already exists in this workspace.`, { field: "friendly_name" });
}

/**
 * Creates an active AI account in the caller's workspace, with its audit row
 * (`ai_account.created`). Run inside the caller's transaction.
 * @throws DomainError SVC_MALFORMED_REQUEST (name pattern), SVC_RESOURCE_CONFLICT (a
 *   non-revoked account has the name).
 */
export async function createAiAccount(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, input: { friendlyName: string }): Promise<AiAccount> {
  checkFriendlyName(input.friendlyName);
  const now = deps.clock.now();
  const workspaceId = caller.principal.workspace.id;
  const account: AiAccount = { id: deps.ids.next(), workspaceId, friendlyName: input.friendlyName, state: "active", createdAt: now, updatedAt: now, lastActiveAt: null };
  const created = await stores.accounts.create({ account });
  if (created.kind === "name_taken") throw nameConflict(input.friendlyName);
  await stores.audit.append({
    entry: accessAuditEntry(deps, caller, { workspaceId, occurredAt: now, activity: "ai_account.created", subjectType: "ai_account", subjectId: account.id, details: { friendly_name: account.friendlyName } }),
  });
  return account;
}

/**
 * The AI account of the caller's workspace with that id, in any state.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (missing, or of another workspace).
 */
export async function getAiAccount(stores: Stores, caller: Pick<AccessCaller, "principal">, accountId: string): Promise<AiAccount> {
  const account = isUlid(accountId) ? await stores.accounts.findById({ workspaceId: caller.principal.workspace.id, accountId }) : null;
  if (account === null) throw notFound("AI account");
  return account;
}

/**
 * Renames an active or frozen AI account (`ai_account.renamed`, with the old and new names).
 * Renaming to the current name changes nothing and writes no audit row.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (name
 *   taken, or the account is revoked).
 */
export async function renameAiAccount(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, input: { accountId: string; friendlyName: string }): Promise<AiAccount> {
  checkFriendlyName(input.friendlyName);
  const current = await getAiAccount(stores, caller, input.accountId);
  if (current.state === "revoked") throw new DomainError("SVC_RESOURCE_CONFLICT", "A revoked AI account cannot be renamed.", { state: current.state });
  if (current.friendlyName === input.friendlyName) return current;
  const now = deps.clock.now();
  const workspaceId = caller.principal.workspace.id;
  const result = await stores.accounts.rename({ workspaceId, accountId: current.id, friendlyName: input.friendlyName, now });
  if (result.kind === "name_taken") throw nameConflict(input.friendlyName);
  if (result.kind === "not_found") throw new DomainError("SVC_RESOURCE_CONFLICT", "The AI account was revoked meanwhile.");
  await stores.audit.append({
    entry: accessAuditEntry(deps, caller, { workspaceId, occurredAt: now, activity: "ai_account.renamed", subjectType: "ai_account", subjectId: current.id, details: { from: current.friendlyName, to: input.friendlyName } }),
  });
  return result.account;
}

/** One state change of an AI account: the states it may leave, the state it enters, its audit activity. */
interface AccountMove {
  from: readonly AiAccountState[];
  to: AiAccountState;
  activity: string;
}

const MOVES = {
  freeze: { from: ["active"], to: "frozen", activity: "ai_account.frozen" },
  unfreeze: { from: ["frozen"], to: "active", activity: "ai_account.unfrozen" },
  revoke: { from: ["active", "frozen"], to: "revoked", activity: "ai_account.revoked" },
} as const satisfies Record<string, AccountMove>;

async function moveAiAccount(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, accountId: string, move: AccountMove): Promise<AiAccount> {
  const current = await getAiAccount(stores, caller, accountId);
  const now = deps.clock.now();
  const workspaceId = caller.principal.workspace.id;
  const result = await stores.accounts.transition({ workspaceId, accountId: current.id, from: move.from, to: move.to, now });
  if (result.kind === "not_found") throw notFound("AI account");
  if (result.kind === "wrong_state") {
    throw new DomainError("SVC_RESOURCE_CONFLICT", `The AI account is ${result.account.state}; this action needs it ${move.from.join(" or ")}.`, { state: result.account.state });
  }
  await stores.audit.append({
    entry: accessAuditEntry(deps, caller, { workspaceId, occurredAt: now, activity: move.activity, subjectType: "ai_account", subjectId: current.id, details: { from: current.state, to: move.to } }),
  });
  return result.account;
}

/**
 * Freezes an active AI account (`ai_account.frozen`): its credentials get 403 SVC_FROZEN from
 * the next request on.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (not active).
 */
export function freezeAiAccount(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, accountId: string): Promise<AiAccount> {
  return moveAiAccount(deps, stores, caller, accountId, MOVES.freeze);
}

/**
 * Unfreezes a frozen AI account (`ai_account.unfrozen`).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (not frozen).
 */
export function unfreezeAiAccount(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, accountId: string): Promise<AiAccount> {
  return moveAiAccount(deps, stores, caller, accountId, MOVES.unfreeze);
}

/**
 * Revokes an active or frozen AI account and every active credential it has, in the caller's
 * transaction: `ai_account.revoked` and one `credential.revoked` row per credential
 * (spec §Revocation 3). Not reversible; the friendly name becomes free. Returns the account and
 * the credentials revoked, so the caller can evict them from the credential cache after commit.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (already revoked).
 */
export async function revokeAiAccount(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, accountId: string): Promise<{ account: AiAccount; revokedCredentials: Credential[] }> {
  const account = await moveAiAccount(deps, stores, caller, accountId, MOVES.revoke);
  const now = account.updatedAt;
  const workspaceId = account.workspaceId;
  const revokedCredentials = await stores.credentials.revokeAllForAccount({ workspaceId, aiAccountId: account.id, now });
  for (const c of revokedCredentials) {
    await stores.audit.append({
      entry: accessAuditEntry(deps, caller, { workspaceId, occurredAt: now, activity: "credential.revoked", subjectType: "credential", subjectId: c.id, details: { ai_account_id: account.id, reason: "ai_account_revoked" } }),
    });
  }
  return { account, revokedCredentials };
}

/**
 * One page of the caller's workspace's AI accounts in creation order, optionally only those in
 * `state`. `after` is the keyset position (an account id) from the previous page.
 */
export async function listAiAccounts(stores: Stores, caller: Pick<AccessCaller, "principal">, p: { state: AiAccountState | null; after: string | null; limit: number }): Promise<{ items: AiAccount[]; nextAfter: string | null }> {
  const rows = await stores.accounts.list({ workspaceId: caller.principal.workspace.id, states: p.state === null ? null : [p.state], after: p.after, limit: p.limit });
  const items = rows.slice(0, p.limit);
  const last = items[items.length - 1];
  return { items, nextAfter: rows.length > p.limit && last ? last.id : null };
}
