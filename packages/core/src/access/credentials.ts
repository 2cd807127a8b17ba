import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import type { Stores } from "../ports.ts";
import { parseDurationMs } from "../time/duration.ts";
import { accessAuditEntry } from "./access-audit.ts";
import type { AccessActor } from "./access-audit.ts";
import type { AccessCaller } from "./ai-accounts.ts";
import { assertRotatable, checkIssuableScopes, resolveExpiry, ROTATION_OVERLAP_BOUNDS, TIER_MAX_LIFETIME_MS } from "./credential-policy.ts";
import type { Credential, Tier } from "./model.ts";
import { hashToken, newTokenSeal, tokenFromSeal } from "./token.ts";

/** A credential just minted, with the seal its plaintext token derives from (see `newTokenSeal`). */
export interface MintedCredential {
  credential: Credential;
  /** Derive the token with `tokenFromSeal(pepper, credential.tier, seal)`; never store the token. */
  seal: string;
}

/** Largest length of a credential name. */
export const CREDENTIAL_NAME_MAX = 200;

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > CREDENTIAL_NAME_MAX) throw malformed(`name must be 1 to ${CREDENTIAL_NAME_MAX} characters.`, { field: "name" });
  return trimmed;
}

/**
 * Mints and stores a credential record (no audit row): the shared core of issue, rotate and
 * bootstrap. The token hash is HMAC-SHA-256 under the pepper of the token derived from a fresh
 * seal.
 */
export async function mintCredential(
  deps: Pick<CoreDeps, "ids" | "secrets">,
  stores: Stores,
  p: { id?: string; workspaceId: string; aiAccountId: string; tier: Tier; scopes: string[]; name: string; expiresAt: Date | null; projectId: string | null; rotatedFromId: string | null; now: Date },
): Promise<MintedCredential> {
  const seal = newTokenSeal();
  const credential: Credential = {
    id: p.id ?? deps.ids.next(),
    workspaceId: p.workspaceId,
    aiAccountId: p.aiAccountId,
    tier: p.tier,
    scopes: p.scopes,
    name: p.name,
    state: "active",
    tokenHash: hashToken(deps.secrets.pepper, tokenFromSeal(deps.secrets.pepper, p.tier, seal)),
    expiresAt: p.expiresAt,
    projectId: p.projectId,
    createdAt: p.now,
    revokedAt: null,
    rotatedFromId: p.rotatedFromId,
    rotatedToId: null,
    lastUsedAt: null,
  };
  await stores.credentials.insert({ credential });
  return { credential, seal };
}

/** What an issue request asks for (already shape-checked). */
export interface IssueCredentialInput {
  aiAccountId: string;
  tier: Tier;
  scopes: readonly string[];
  name: string;
  expiresAt?: string | null;
  projectId?: string | null;
}

/** The `credential.issued` audit row of a credential just minted (never the token or its hash). */
export function credentialIssuedAudit(deps: Pick<CoreDeps, "ids">, actor: AccessActor, c: Credential): NewAuditEntry {
  return accessAuditEntry(deps, actor, {
    workspaceId: c.workspaceId,
    occurredAt: c.createdAt,
    activity: "credential.issued",
    subjectType: "credential",
    subjectId: c.id,
    details: { ai_account_id: c.aiAccountId, tier: c.tier, scopes: c.scopes, name: c.name, expires_at: c.expiresAt?.toISOString() ?? null, project_id: c.projectId },
  });
}

/**
 * Issues a credential to an AI account of the caller's workspace (`credential.issued`).
 * Rules (spec §Issuing, §Tiers, §Scopes): scopes known, not retired and of the tier; project_id
 * only on operational credentials, naming a project of the caller's workspace (archived ones
 * included: the credential can still read it); expires_at in the future and within the tier
 * maximum (default: the tier maximum); the account exists here and is not revoked (a frozen
 * account may receive one; it works once the account is unfrozen).
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND (account missing, foreign or
 *   revoked; project missing or foreign, DESIGN §2c).
 */
export async function issueCredential(deps: Pick<CoreDeps, "clock" | "ids" | "secrets">, stores: Stores, caller: AccessCaller, input: IssueCredentialInput): Promise<MintedCredential> {
  const projectId = input.projectId ?? null;
  if (input.tier === "administrative" && projectId !== null) {
    throw malformed("An administrative credential cannot be restricted to a project.", { field: "project_id" });
  }
  if (projectId !== null && !isUlid(projectId)) throw malformed("project_id must be a ULID.", { field: "project_id" });
  const scopes = checkIssuableScopes(input.tier, input.scopes);
  const name = checkName(input.name);
  const now = deps.clock.now();
  const expiresAt = resolveExpiry(input.tier, input.expiresAt, now);
  const workspaceId = caller.principal.workspace.id;
  const account = isUlid(input.aiAccountId) ? await stores.accounts.findById({ workspaceId, accountId: input.aiAccountId }) : null;
  if (account === null || account.state === "revoked") throw notFound("AI account");
  if (projectId !== null && (await stores.projects.find({ workspaceId, projectId })) === null) throw notFound("Project");
  const minted = await mintCredential(deps, stores, { workspaceId, aiAccountId: account.id, tier: input.tier, scopes, name, expiresAt, projectId, rotatedFromId: null, now });
  await stores.audit.append({ entry: credentialIssuedAudit(deps, caller, minted.credential) });
  return minted;
}

/**
 * The credential of the caller's workspace with that id (any state).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function getCredential(stores: Stores, caller: Pick<AccessCaller, "principal">, credentialId: string): Promise<Credential> {
  const credential = isUlid(credentialId) ? await stores.credentials.findById({ workspaceId: caller.principal.workspace.id, credentialId }) : null;
  if (credential === null) throw notFound("Credential");
  return credential;
}

/**
 * Rotates a credential (`credential.rotated` on the predecessor, naming the successor): a
 * successor with the same account, tier, scopes and project and a fresh tier-maximum lifetime;
 * the predecessor keeps working until now + overlap_window (or its own earlier expiry).
 * @throws DomainError SVC_MALFORMED_REQUEST (overlap_window outside PT1S..P1D or fractional;
 *   name), SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (revoked, expired or already rotated,
 *   also the loser of two concurrent rotations), SVC_SCOPE_NOT_ISSUABLE (carries a retired scope).
 */
export async function rotateCredential(
  deps: Pick<CoreDeps, "clock" | "ids" | "secrets">,
  stores: Stores,
  caller: AccessCaller,
  input: { credentialId: string; overlapWindow: string; name?: string | null },
): Promise<MintedCredential & { predecessor: Credential }> {
  const overlapMs = parseDurationMs(input.overlapWindow, "overlap_window", ROTATION_OVERLAP_BOUNDS);
  const newName = input.name === undefined || input.name === null ? null : checkName(input.name);
  const current = await getCredential(stores, caller, input.credentialId);
  const now = deps.clock.now();
  if (current.state === "revoked") throw new DomainError("SVC_RESOURCE_CONFLICT", "A revoked credential cannot be rotated.", { state: current.state });
  if (current.rotatedToId !== null) throw new DomainError("SVC_RESOURCE_CONFLICT", "This credential was already rotated.", { rotated_to_id: current.rotatedToId });
  if (current.expiresAt !== null && current.expiresAt.getTime() <= now.getTime()) throw new DomainError("SVC_RESOURCE_CONFLICT", "An expired credential cannot be rotated.", { state: "expired" });
  assertRotatable(current.scopes);

  const workspaceId = current.workspaceId;
  const successorId = deps.ids.next();
  const overlapEndsAt = new Date(now.getTime() + overlapMs);
  const marked = await stores.credentials.markRotated({ workspaceId, credentialId: current.id, successorId, overlapEndsAt });
  if (marked.kind === "not_found") throw notFound("Credential");
  if (marked.kind === "conflict") throw new DomainError("SVC_RESOURCE_CONFLICT", "This credential was rotated or revoked meanwhile.");

  const { credential: successor, seal } = await mintCredential(deps, stores, {
    id: successorId,
    workspaceId,
    aiAccountId: current.aiAccountId,
    tier: current.tier,
    scopes: [...current.scopes],
    name: newName ?? current.name,
    expiresAt: new Date(now.getTime() + TIER_MAX_LIFETIME_MS[current.tier]),
    projectId: current.projectId,
    rotatedFromId: current.id,
    now,
  });
  await stores.audit.append({
    entry: accessAuditEntry(deps, caller, {
      workspaceId,
      occurredAt: now,
      activity: "credential.rotated",
      subjectType: "credential",
      subjectId: current.id,
      details: { successor_id: successor.id, overlap_ends_at: marked.credential.expiresAt?.toISOString() ?? null, ai_account_id: current.aiAccountId, name: successor.name },
    }),
  });
  return { credential: successor, seal, predecessor: marked.credential };
}

/**
 * Revokes a credential (`credential.revoked`): refused from the next request on in this process
 * once evicted from the cache, and within the cache TTL elsewhere.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (already revoked).
 */
export async function revokeCredential(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, credentialId: string): Promise<Credential> {
  const current = await getCredential(stores, caller, credentialId);
  const now = deps.clock.now();
  const result = await stores.credentials.revoke({ workspaceId: current.workspaceId, credentialId: current.id, now });
  if (result.kind === "not_found") throw notFound("Credential");
  if (result.kind === "already_revoked") throw new DomainError("SVC_RESOURCE_CONFLICT", "This credential is already revoked.", { state: "revoked" });
  await stores.audit.append({
    entry: accessAuditEntry(deps, caller, { workspaceId: current.workspaceId, occurredAt: now, activity: "credential.revoked", subjectType: "credential", subjectId: current.id, details: { ai_account_id: current.aiAccountId, reason: "revoked" } }),
  });
  return result.credential;
}

/**
 * One page of the caller's workspace's credentials, newest first, optionally of one AI account.
 * `after` is the keyset position (a credential id) from the previous page.
 */
export async function listCredentials(stores: Stores, caller: Pick<AccessCaller, "principal">, p: { aiAccountId: string | null; after: string | null; limit: number }): Promise<{ items: Credential[]; nextAfter: string | null }> {
  const rows = await stores.credentials.list({ workspaceId: caller.principal.workspace.id, aiAccountId: p.aiAccountId, after: p.after, limit: p.limit });
  const items = rows.slice(0, p.limit);
  const last = items[items.length - 1];
  return { items, nextAfter: rows.length > p.limit && last ? last.id : null };
}
