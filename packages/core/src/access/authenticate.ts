import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { AiAccount, Credential, CredentialPrincipal, Principal, Workspace } from "./model.ts";
import { constantTimeEqual, hashToken, isWellFormedToken } from "./token.ts";

/** How long a cached credential is trusted before it is read again (spec §Revocation: 30 s). */
export const CREDENTIAL_CACHE_TTL_MS = 30_000;
/**
 * How long an account and workspace read for one request may stand in for the read of a later
 * request whose operation checks them in its own write (a deferred check).
 */
export const CALLER_CONTEXT_TTL_MS = 10_000;
/**
 * How stale a credential's `lastUsedAt` (and its account's `lastActiveAt`, its grant's
 * `lastUsedAt`) may get: a request records its use only when the last record is older than this,
 * so a busy credential costs one UPDATE a minute per process, not one per request.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Cached credentials per process; the oldest entry is dropped past this. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * The one message of every refused credential: missing, malformed, unknown, revoked and expired
 * look the same to the caller (spec §Authentication 4).
 */
export const UNAUTHENTICATED_MESSAGE = "The request does not carry a valid credential.";

function unauthenticated(): DomainError {
  return new DomainError("SVC_UNAUTHENTICATED", UNAUTHENTICATED_MESSAGE);
}

/** Turns bearer tokens into principals for the edges (REST, MCP). */
export interface Authenticator {
  /**
   * Authenticates one request from its Authorization header value (null when absent).
   * The credential comes from the in-process cache (read again after the cache TTL); the AI
   * account and workspace are read fresh on every call, so freezes and account revocations
   * apply on the very next request. With `deferCallerCheck`, a recently read account and
   * workspace (`contextTtlMs`, 10 s) may be reused, the principal is marked
   * `callerCheckDeferred`, and the operation checks them itself on this very request (as a
   * guard of its write, or by `verifyCaller`): a freeze still bites on the next request.
   * An accepted credential's use is recorded (last used, its account's last active, its OAuth
   * grant's last used) at most once per LAST_USED_RESOLUTION_MS per process, without waiting.
   * @throws DomainError SVC_UNAUTHENTICATED (missing, malformed, unknown, revoked or expired
   *   credential; revoked account), SVC_WORKSPACE_CLOSED, SVC_FROZEN (account or workspace).
   */
  authenticate(authorizationHeader: string | null, options?: { deferCallerCheck?: boolean }): Promise<CredentialPrincipal>;
  /** Drops a credential from this process's cache at once (after a revoke or rotate here). */
  forget(credentialId: string): void;
}

interface CacheEntry {
  credential: Credential;
  loadedAtMs: number;
  /** When this process last recorded (or the database last showed) a use of the credential; -Infinity when never. */
  usedAtMs: number;
}

/**
 * Creates an authenticator with its own credential cache. One per process: every replica has
 * its own cache, so a credential revoked through another replica is refused here at most
 * `cacheTtlMs` later (the designed 30 s bound). Unknown tokens are never cached, so a
 * credential issued elsewhere works at once.
 */
export function createAuthenticator(deps: Pick<CoreDeps, "stores" | "clock" | "secrets">, options: { cacheTtlMs?: number; maxEntries?: number; contextTtlMs?: number; lastUsedResolutionMs?: number } = {}): Authenticator {
  const ttlMs = options.cacheTtlMs ?? CREDENTIAL_CACHE_TTL_MS;
  const resolutionMs = options.lastUsedResolutionMs ?? LAST_USED_RESOLUTION_MS;
  const contextTtlMs = options.contextTtlMs ?? CALLER_CONTEXT_TTL_MS;
  // Account and workspace as last read, by account id: reused only for deferred checks.
  const contexts = new Map<string, { context: { account: AiAccount; workspace: Workspace }; loadedAtMs: number }>();
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const byHash = new Map<string, CacheEntry>();
  const hashById = new Map<string, string>();

  function remember(tokenHash: string, credential: Credential, nowMs: number): CacheEntry {
    const before = byHash.get(tokenHash);
    // What this process recorded may not show in the row read yet (a write still in flight).
    const usedAtMs = Math.max(credential.lastUsedAt?.getTime() ?? -Infinity, before?.credential.id === credential.id ? before.usedAtMs : -Infinity);
    const entry: CacheEntry = { credential, loadedAtMs: nowMs, usedAtMs };
    byHash.delete(tokenHash);
    byHash.set(tokenHash, entry);
    hashById.set(credential.id, tokenHash);
    while (byHash.size > maxEntries) {
      const oldest = byHash.keys().next();
      if (oldest.done === true) break;
      const evicted = byHash.get(oldest.value);
      byHash.delete(oldest.value);
      if (evicted) hashById.delete(evicted.credential.id);
    }
    return entry;
  }

  async function lookup(tokenHash: string, nowMs: number): Promise<CacheEntry | null> {
    const hit = byHash.get(tokenHash);
    // A clock that went backwards also forces a read.
    if (hit && nowMs - hit.loadedAtMs < ttlMs && nowMs >= hit.loadedAtMs) return hit;
    const credential = await deps.stores.credentials.findByTokenHash({ tokenHash });
    if (credential === null) {
      if (hit) forget(hit.credential.id);
      return null;
    }
    return remember(tokenHash, credential, nowMs);
  }

  /**
   * Records an authenticated use of the credential when the last one recorded is older than the
   * resolution: one conditional UPDATE, not awaited, whose failure never reaches the request (the
   * entry is read again within the cache TTL, and a use still unrecorded there is tried again).
   */
  function noteUse(entry: CacheEntry, now: Date): void {
    const nowMs = now.getTime();
    if (nowMs - entry.usedAtMs <= resolutionMs && nowMs >= entry.usedAtMs) return;
    entry.usedAtMs = nowMs;
    const c = entry.credential;
    const staleBefore = new Date(nowMs - resolutionMs);
    void deps.stores.credentials.recordUse({ workspaceId: c.workspaceId, credentialId: c.id, aiAccountId: c.aiAccountId, now, staleBefore }).catch(() => undefined);
  }

  function forget(credentialId: string): void {
    const tokenHash = hashById.get(credentialId);
    if (tokenHash === undefined) return;
    hashById.delete(credentialId);
    byHash.delete(tokenHash);
  }

  async function authenticate(authorizationHeader: string | null, options?: { deferCallerCheck?: boolean }): Promise<CredentialPrincipal> {
    if (authorizationHeader === null) throw unauthenticated();
    const match = /^Bearer +(\S+) *$/i.exec(authorizationHeader);
    const token = match?.[1];
    if (token === undefined || !isWellFormedToken(token)) throw unauthenticated();

    const tokenHash = hashToken(deps.secrets.pepper, token, deps.secrets.native);
    const now = deps.clock.now();
    const entry = await lookup(tokenHash, now.getTime());
    const credential = entry?.credential ?? null;
    if (entry === null || credential === null || !constantTimeEqual(credential.tokenHash, tokenHash)) throw unauthenticated();
    if (credential.state !== "active") throw unauthenticated();
    if (credential.expiresAt !== null && credential.expiresAt.getTime() <= now.getTime()) throw unauthenticated();

    if (options?.deferCallerCheck === true) {
      const cached = contexts.get(credential.aiAccountId);
      const nowMs = now.getTime();
      if (cached && nowMs - cached.loadedAtMs < contextTtlMs && nowMs >= cached.loadedAtMs && cached.context.account.workspaceId === credential.workspaceId) {
        noteUse(entry, now);
        return { ...cached.context, credential, callerCheckDeferred: true };
      }
    }
    const context = await deps.stores.accounts.loadPrincipalContext({ accountId: credential.aiAccountId });
    if (context === null || context.account.workspaceId !== credential.workspaceId) throw unauthenticated();
    const refusal = callerRefusal(context);
    if (refusal !== null) {
      contexts.delete(credential.aiAccountId);
      throw refusal;
    }
    contexts.delete(credential.aiAccountId);
    contexts.set(credential.aiAccountId, { context, loadedAtMs: now.getTime() });
    while (contexts.size > maxEntries) {
      const oldest = contexts.keys().next();
      if (oldest.done === true) break;
      contexts.delete(oldest.value);
    }
    noteUse(entry, now);
    return { ...context, credential };
  }

  return { authenticate, forget };
}

/**
 * The refusal of a caller whose account or workspace is not active, in the authenticator's
 * order: a revoked account is SVC_UNAUTHENTICATED, a closed workspace SVC_WORKSPACE_CLOSED, a
 * frozen workspace or account SVC_FROZEN (details.frozen); null for an active caller.
 */
export function callerRefusal(p: { account: Pick<AiAccount, "state">; workspace: Pick<Workspace, "state"> }): DomainError | null {
  if (p.account.state === "revoked") return unauthenticated();
  if (p.workspace.state === "closed") return new DomainError("SVC_WORKSPACE_CLOSED", "This workspace is closed.");
  if (p.workspace.state === "frozen") return new DomainError("SVC_FROZEN", "This workspace is frozen.", { frozen: "workspace" });
  if (p.account.state === "frozen") return new DomainError("SVC_FROZEN", "This AI account is frozen.", { frozen: "ai_account" });
  return null;
}

/**
 * Reads the caller's account and workspace afresh and returns the principal with them (no
 * longer deferred); a principal that is not deferred is returned as it is.
 * @throws DomainError SVC_UNAUTHENTICATED, SVC_WORKSPACE_CLOSED, SVC_FROZEN, as `authenticate`.
 */
export async function verifyCaller<P extends Principal>(deps: Pick<CoreDeps, "stores">, principal: P): Promise<P> {
  if (principal.kind === "person" || principal.callerCheckDeferred !== true) return principal;
  const context = await deps.stores.accounts.loadPrincipalContext({ accountId: principal.account.id });
  if (context === null || context.account.workspaceId !== principal.credential.workspaceId) throw unauthenticated();
  const refusal = callerRefusal(context);
  if (refusal !== null) throw refusal;
  const fresh: CredentialPrincipal = { ...context, credential: principal.credential };
  return fresh as P;
}

