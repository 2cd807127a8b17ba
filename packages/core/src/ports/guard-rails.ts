import type { Policy, PolicyListItem } from "../policies/policy.ts";
import type { ApprovalHolds, PolicyKind } from "../policies/approval-holds.ts";
import type { WorkspacePlan } from "../plans/plan-limits.ts";

// The guard-rail seam: policies, plans, rate limits, anonymous limits and sanctions screening.
// Every port's general rules: src/ports.ts.

/** Versioned workspace policies and the AI accounts' acknowledgements of them. */
export interface PolicyStore {
  /**
   * Publishes a new version of the workspace's policy named `name`: version 1 under the new id
   * `newId` when the name is new, else the current version + 1 under the policy's existing id.
   * `required`, `kind`, `holds` and `body` are those of the new version. Concurrent publishes of
   * one name are serialized (each gets its own version; in PostgreSQL a row lock on the policy).
   */
  publish(p: { workspaceId: string; name: string; newId: string; required: boolean; kind: PolicyKind; holds: ApprovalHolds | null; body: string; publishedAt: Date; publishedBy: string | null }): Promise<Policy>;
  /** The workspace's policies whose current version is of kind approval, by name (DESIGN §2c). */
  listApproval(p: { workspaceId: string }): Promise<Policy[]>;
  /** The current version of the policy, or null. */
  findCurrent(p: { workspaceId: string; policyId: string }): Promise<Policy | null>;
  /**
   * The current version of each of the workspace's policies, by name ascending, with the
   * version `accountId` last acknowledged (null when never). `after` is a policy name.
   */
  listCurrent(p: { workspaceId: string; accountId: string; after: string | null; limit: number }): Promise<PolicyListItem[]>;
  /**
   * Records that the account acknowledged `version` of the policy, guarded by `version` being
   * the current one (serialized against publish). `stale` when a later version is current,
   * `unknown_version` when the version was never published, `not_found` when the policy does
   * not exist. Acknowledging the version already acknowledged is `acknowledged` again.
   */
  acknowledge(p: { workspaceId: string; policyId: string; accountId: string; version: number; now: Date }): Promise<{ kind: "acknowledged"; policy: Policy; acknowledgedAt: Date } | { kind: "stale"; current: Policy } | { kind: "unknown_version"; current: Policy } | { kind: "not_found" }>;
  /**
   * Who acknowledged the policy: each AI account's last acknowledged version and when, by
   * account id ascending, at most `limit + 1` (the extra row tells a next page exists); `after`
   * is an account id. Empty for a policy of another workspace.
   */
  listAcknowledgements(p: { workspaceId: string; policyId: string; after: string | null; limit: number }): Promise<{ accountId: string; version: number; acknowledgedAt: Date }[]>;
  /**
   * The send gate (one indexed read): required policies of the workspace whose current
   * version the account has not acknowledged (at most `limit`).
   */
  unacknowledgedRequired(p: { workspaceId: string; accountId: string; limit: number }): Promise<{ policyId: string; name: string; version: number }[]>;
}

/** Per-workspace plans and the usage counts the plan caps are checked against. */
export interface PlanStore {
  /** The workspace's plan row (plan name and overrides), or null (the default plan, no overrides). */
  findWorkspacePlan(p: { workspaceId: string }): Promise<WorkspacePlan | null>;
  /** Inserts or replaces the workspace's plan row (operators and tests). */
  setWorkspacePlan(p: { plan: WorkspacePlan; now: Date }): Promise<void>;
  /** AI accounts of the workspace that are not revoked (they count against the cap). */
  countLiveAccounts(p: { workspaceId: string }): Promise<number>;
  /**
   * Messages accepted by the workspace with `from <= acceptedAt < to`, counted from the
   * `message.sent` audit rows (purging a dead letter does not give its message back).
   */
  countMessagesAccepted(p: { workspaceId: string; from: Date; to: Date }): Promise<number>;
}

/**
 * Fixed-window request counters shared by every process using the adapter (PostgreSQL) or
 * local to one process (in-process adapter). Not transactional: a hit counts at once.
 */
export interface RateLimiter {
  /**
   * Adds `cost` (0 reads without spending) to the credential's bucket and to the workspace's
   * bucket of the window starting at `windowStart`, and returns both totals after the hit.
   * One statement in PostgreSQL; concurrent hits never lose a count.
   */
  hit(p: { workspaceId: string; credentialId: string; windowStart: Date; cost: number }): Promise<{ credential: number; workspace: number }>;
  /** Drops the counters of windows that started before `before`; returns how many. */
  purgeBefore(p: { before: Date }): Promise<number>;
}

/**
 * Counters of anonymous requests (DESIGN §2c: sign-up, verify-email, password reset, OAuth
 * registration, notice intake), per bucket and key: the key is a keyed hash of a client address
 * (or of an email, for the reset mails one email may trigger), never the value itself. A key's
 * window opens at its first counted request and lasts `windowMs`; the next request after it
 * ends opens a new one. Always in PostgreSQL in the server, whatever SVC_RATE_LIMITER says, so
 * every process on the database shares the counts (DESIGN §5).
 */
export interface AnonymousLimitStore {
  /**
   * Counts one request (`cost`) of `key` in `bucket` at `now` and returns the count of the
   * current window after it and when that window ends; a window that ended at or before `now` is
   * replaced by a new one opening at `now`. Every request counts, refused ones too (the window
   * does not move, so a refused client gets in again when it ends). Atomic: ONE statement in
   * PostgreSQL (an upsert on the (bucket, key) row; concurrent hits queue on that row lock for
   * one statement), so N concurrent hits count N. Call it outside a transaction: inside one the
   * row lock would be held until the transaction ends.
   */
  hit(p: { bucket: string; key: string; now: Date; windowMs: number; cost: number }): Promise<{ count: number; windowEndsAt: Date }>;
  /** Deletes counters whose window ended before `before`; returns how many. */
  purgeBefore(p: { before: Date }): Promise<number>;
}

/** A participant of a send, as the sanctions screen sees it. */
export interface ScreenedParty {
  workspaceId: string;
  accountId: string;
  friendlyName: string;
}

/** The outcome of screening: clear, or the first listed party and its status. */
export type ScreeningResult = { status: "clear" } | { status: "blocked" | "review"; party: ScreenedParty; matchedOn: "workspace" | "ai_account" | "name" };

/** Sanctions screening of the participants of a send (sender and recipient). */
export interface SanctionsScreen {
  /** Screens every party; `blocked` wins over `review` when both match. Never throws for a listed party. */
  screen(p: { parties: readonly ScreenedParty[] }): Promise<ScreeningResult>;
}
