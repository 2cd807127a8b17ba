import type { AiAccount, AiAccountState, Credential, Person, Workspace, WorkspaceState } from "../access/model.ts";

// The access seam: workspaces, AI accounts and credentials. Every port's general rules:
// src/ports.ts.

/** Workspaces and their owner people. */
export interface WorkspaceStore {
  /** Creates a workspace with its owner person. Emails are unique across all workspaces: returns `email_taken` otherwise. */
  create(p: { workspace: Workspace; owner: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }>;
  /** The workspace, or null. */
  findById(p: { workspaceId: string }): Promise<Workspace | null>;
  /** Sets the state; returns the updated workspace, or null when it does not exist. */
  setState(p: { workspaceId: string; state: WorkspaceState }): Promise<Workspace | null>;
  /** The owner person of the workspace, or null. */
  findOwner(p: { workspaceId: string }): Promise<Person | null>;
}

/** AI accounts. Friendly names are unique per workspace among accounts that are not revoked. */
export interface AccountStore {
  /** Inserts an account; `name_taken` when a non-revoked account of the workspace has the name. */
  create(p: { account: AiAccount }): Promise<{ kind: "created" } | { kind: "name_taken" }>;
  /** The account (any state), or null. */
  findById(p: { workspaceId: string; accountId: string }): Promise<AiAccount | null>;
  /** The non-revoked account with that friendly name, or null: the recipient resolution of a send. */
  findAddressable(p: { workspaceId: string; friendlyName: string }): Promise<AiAccount | null>;
  /** The workspace's accounts in creation order (id ascending); `after` is an account id. */
  list(p: { workspaceId: string; states: readonly AiAccountState[] | null; after: string | null; limit: number }): Promise<AiAccount[]>;
  /** Renames an active or frozen account; null when missing or revoked. */
  rename(p: { workspaceId: string; accountId: string; friendlyName: string; now: Date }): Promise<{ kind: "renamed"; account: AiAccount } | { kind: "name_taken" } | { kind: "not_found" }>;
  /**
   * Moves an account from one of `from` to `to`; returns the updated account, `wrong_state`
   * (with the current account) when its state is not in `from`, or `not_found`.
   */
  transition(p: { workspaceId: string; accountId: string; from: readonly AiAccountState[]; to: AiAccountState; now: Date }): Promise<{ kind: "moved"; account: AiAccount } | { kind: "wrong_state"; account: AiAccount } | { kind: "not_found" }>;
  /**
   * One read for the authenticator: the account and its workspace, by account id (not scoped
   * by workspace, because the credential names the account). Null when either is missing.
   */
  loadPrincipalContext(p: { accountId: string }): Promise<{ account: AiAccount; workspace: Workspace } | null>;
}

/** Credentials. Only keyed hashes of tokens are stored. */
export interface CredentialStore {
  /** Inserts a credential. */
  insert(p: { credential: Credential }): Promise<void>;
  /** The credential with that token hash (any state, any workspace), or null. */
  findByTokenHash(p: { tokenHash: string }): Promise<Credential | null>;
  /** The credential, or null. */
  findById(p: { workspaceId: string; credentialId: string }): Promise<Credential | null>;
  /** The workspace's credentials, newest first (id descending); `after` is a credential id. */
  list(p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<Credential[]>;
  /** Revokes an active credential; `already_revoked` or `not_found` otherwise. */
  revoke(p: { workspaceId: string; credentialId: string; now: Date }): Promise<{ kind: "revoked"; credential: Credential } | { kind: "already_revoked" } | { kind: "not_found" }>;
  /** Revokes every active credential of the account; returns those it revoked. */
  revokeAllForAccount(p: { workspaceId: string; aiAccountId: string; now: Date }): Promise<Credential[]>;
  /**
   * Marks an active, not yet rotated credential as rotated to `successorId`, cutting its expiry
   * to `overlapEndsAt` (or keeping an earlier one). `conflict` when it was already rotated or is
   * revoked (the loser of two concurrent rotations gets `conflict`), `not_found` when missing.
   */
  markRotated(p: { workspaceId: string; credentialId: string; successorId: string; overlapEndsAt: Date }): Promise<{ kind: "rotated"; credential: Credential } | { kind: "conflict" } | { kind: "not_found" }>;
  /**
   * Records that the credential authenticated a request at `now` (the authenticator's throttled
   * write, never awaited by the request): its `lastUsedAt`, its account's `lastActiveAt` and,
   * for an OAuth access token, its grant's `lastUsedAt` become `now`, each only where it is null
   * or before `staleBefore` (so concurrent replicas write a row at most about once a minute, and
   * nothing moves backwards). Scoped by workspace; a missing row is left alone.
   */
  recordUse(p: { workspaceId: string; credentialId: string; aiAccountId: string; now: Date; staleBefore: Date }): Promise<void>;
}
