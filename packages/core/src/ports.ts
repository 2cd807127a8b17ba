/**
 * Every port of the core: the seams through which use cases reach storage, time, ids and
 * wake-ups. Adapters: `InMemory*` in @agentq/core/testing, `Pg*` in @agentq/postgres. Every port
 * has a contract suite (`describe<Port>Contract`) that both adapters pass.
 *
 * General rules for every store method:
 * - Every read and write is scoped by `workspaceId`; a record of another workspace is
 *   indistinguishable from a missing one (null / not found).
 * - Methods never throw DomainError for expected outcomes; they return a tagged result and the
 *   use case decides the code. They throw only for infrastructure faults (which the edges
 *   report as SVC_SERVICE_UNAVAILABLE).
 * - Where a method says "now", it means the adapter's clock: the database clock for
 *   PostgreSQL (leases are decided by the database), the injected Clock for InMemory.
 * - Paged lists take `after` (an opaque keyset position the store itself returned as
 *   `position` of an item, or null for the first page) and `limit`, and return at most
 *   `limit + 1` items so the caller can tell whether another page exists.
 */
import type { CallerGuard } from "./access/caller-guard.ts";
import type { AuditEntry, NewAuditEntry } from "./audit/audit-entry.ts";
import type { TreeNode } from "./audit/transparency-log/tree-coordinates.ts";
import type { AiAccount, AiAccountState, Credential, Person, PersonSession, Role, Workspace, WorkspaceState } from "./access/model.ts";
import type { IdempotencyRecord } from "./idempotency/idempotency-record.ts";
import type { MessageRecord, MessageState, NewMessage } from "./messaging/message.ts";
import type { IdSource } from "./ids.ts";
import type { ClaimedDelivery, DeliveryRecord, DeliveryState, SigningKey, WebhookFilter, WebhookRecord, WebhookStats } from "./webhooks/webhook.ts";
import type { MailMessage } from "./mail/mail-message.ts";
import type { LinkedIdentity, OidcAttempt, OidcIdentity } from "./oidc/oidc-identity.ts";
import type { PendingSignUp } from "./people/pending-sign-up.ts";
import type { PersonToken, PersonTokenPurpose } from "./people/person-tokens.ts";
import type { Policy, PolicyListItem } from "./policies/policy.ts";
import type { WorkspacePlan } from "./plans/plan-limits.ts";
import type { Notice, NoticeItem, NoticeLocation, NoticeState } from "./notices/notice.ts";
import type { CandidateFilters, Enrichment, Lesson, LessonCandidate, LessonFilters, LessonObservation, LessonSort, LessonStatus, CandidateStatus, Detector, Rule, RuleFilters } from "./session-state/learning-model.ts";
import type { ImportRecord, ImportRow } from "./session-state/imports/imports.ts";
import type { UsageDayRow, UsageFigures, UsageReport } from "./session-state/usage-model.ts";
import type { AuthorizationCode, GrantRevocationCause, OAuthClient, OAuthGrant, RefreshTokenRecord } from "./oauth/model.ts";
import type { BacklogFilters, BacklogItem, BacklogSort, BacklogStatus, BuildSession, BuildSessionFilters, DecisionAuthor, DecisionEntry, DecisionListFilters, DecisionRow, DecisionSearchHit, Project, ProjectChanges, ProjectState, RecordEvent, SourceAmendment, StalenessThresholds } from "./session-state/model.ts";

export type { IdSource };

/** The time source of the core. The database clock stays the authority for leases. */
export interface Clock {
  /** The current instant. */
  now(): Date;
}

// ---------------------------------------------------------------------------------------------
// Workspaces, people, AI accounts, credentials
// ---------------------------------------------------------------------------------------------

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
}

// ---------------------------------------------------------------------------------------------
// People, sessions, sign-in throttling, password hashing (DESIGN §2b)
// ---------------------------------------------------------------------------------------------

/** People of workspaces. Emails (lower-cased) are unique across all workspaces. */
export interface PersonStore {
  /** Inserts a person into an existing workspace; `email_taken` when any person has that email. */
  insert(p: { person: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }>;
  /** The person with that email (already lower-cased and trimmed), any workspace, or null. */
  findByEmail(p: { email: string }): Promise<Person | null>;
  /** The person, or null (missing or of another workspace). */
  findById(p: { workspaceId: string; personId: string }): Promise<Person | null>;
  /** The person and their workspace in one read (the session authenticator), or null. */
  loadSessionContext(p: { workspaceId: string; personId: string }): Promise<{ person: Person; workspace: Workspace } | null>;
  /** Sets the password hash; the updated person, or null when missing. */
  setPasswordHash(p: { workspaceId: string; personId: string; passwordHash: string }): Promise<Person | null>;
  /** The person's MFA secrets (sealed) and last accepted TOTP step, or null when the person is missing. */
  loadMfa(p: { workspaceId: string; personId: string }): Promise<PersonMfa | null>;
  /** Keeps a TOTP secret enrolled but not confirmed (sealed), replacing an earlier one. */
  setPendingTotp(p: { workspaceId: string; personId: string; sealed: string }): Promise<void>;
  /**
   * Turns MFA on in one guarded write: the pending secret becomes the secret, mfaEnabledAt =
   * now, the last step = `step` (the confirming code's), and the recovery codes are replaced by
   * `recoveryCodeHashes`. False (nothing written) when MFA is already on or nothing is pending.
   */
  confirmTotp(p: { workspaceId: string; personId: string; step: number; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean>;
  /**
   * Accepts TOTP step `step` once: a compare-and-set that records it only when it is later than
   * the last accepted step (so of two concurrent uses of one code, one wins). False otherwise.
   */
  useTotpStep(p: { workspaceId: string; personId: string; step: number }): Promise<boolean>;
  /** Spends an unused recovery code (usedAt = now); false when unknown or spent (one of two concurrent uses wins). */
  useRecoveryCode(p: { workspaceId: string; personId: string; codeHash: string; now: Date }): Promise<boolean>;
  /** Unused recovery codes of the person. */
  countRecoveryCodes(p: { workspaceId: string; personId: string }): Promise<number>;
}

/** A person's MFA material as stored: secrets sealed (SecretSealer), never in clear. */
export interface PersonMfa {
  totpSecretSealed: string | null;
  totpPendingSealed: string | null;
  totpLastStep: number | null;
}

/**
 * Symmetric encryption of small secrets at rest (TOTP seeds), under a key derived from the server
 * secret (AES-256-GCM in production).
 */
export interface SecretSealer {
  /** The sealed form of `plaintext` (a fresh nonce each time). */
  seal(plaintext: string): string;
  /** The plaintext, or null when `sealed` was not sealed under this key or was altered. */
  open(sealed: string): string | null;
}

/**
 * People's browser sessions. Only the keyed hash of a session value is stored. A session that
 * ended stays (endedAt set) so a replayed cookie is refused like an unknown one.
 */
export interface PersonSessionStore {
  /** Inserts a session. */
  insert(p: { session: PersonSession }): Promise<void>;
  /** The session with that value hash (any state, any workspace), or null. */
  findByTokenHash(p: { tokenHash: string }): Promise<PersonSession | null>;
  /** Sets lastSeenAt of a live session (the idle timeout counts from it); no-op when ended. */
  touch(p: { workspaceId: string; sessionId: string; lastSeenAt: Date }): Promise<void>;
  /** Sets the step-up horizon of a live session; the updated session, or null when missing or ended. */
  setStepUp(p: { workspaceId: string; sessionId: string; stepUpUntil: Date }): Promise<PersonSession | null>;
  /** Ends one live session (endedAt = now); false when it was missing or already ended. */
  end(p: { workspaceId: string; sessionId: string; now: Date }): Promise<boolean>;
  /**
   * Ends every live session of the person, or only those created without MFA
   * (`onlyWithoutMfa`); returns the ids it ended.
   */
  endAllOfPerson(p: { workspaceId: string; personId: string; now: Date; onlyWithoutMfa: boolean }): Promise<string[]>;
  /** Deletes sessions that ended or expired before `before`; returns how many. */
  purgeBefore(p: { before: Date }): Promise<number>;
}

/** How many attempts a window holds now, and when the oldest of them was made (null: none). */
export interface ThrottleWindowCount {
  count: number;
  oldest: Date | null;
}

/**
 * Sign-in, MFA and step-up attempts counted per email and per client address, both as keyed
 * hashes (DESIGN §2b, §2c). An attempt takes its place in both windows before the password or
 * code is checked; a successful one gives its place back, so what stays in a window are the
 * failures (and the attempts still being checked).
 */
export interface SignInThrottleStore {
  /**
   * Admits one attempt, atomically: when the email's and the address's windows (attempts made at
   * or after `since`) both hold fewer than their limits, records the attempt `id` at `at` and
   * answers `admitted: true`; otherwise records nothing. The counts are those seen before this
   * attempt. Concurrent calls for one email or one address are serialized (PostgreSQL: advisory
   * transaction locks on the email key, then the address key), so of N concurrent attempts with
   * room for k, exactly k are admitted. In a caller's transaction the locks are held until it ends.
   */
  admitAttempt(p: { id: string; emailKey: string; addressKey: string; at: Date; since: Date; emailLimit: number; addressLimit: number }): Promise<{ admitted: boolean; email: ThrottleWindowCount; address: ThrottleWindowCount }>;
  /** Gives an admitted attempt's place back (it succeeded); no-op when it is gone. */
  releaseAttempt(p: { id: string }): Promise<void>;
  /** Deletes attempts made before `before`; returns how many. */
  purgeBefore(p: { before: Date }): Promise<number>;
}

/** Password hashing (argon2id in production: `@node-rs/argon2`). */
export interface PasswordHasher {
  /** The PHC string of a new hash of `password` (random salt). */
  hash(password: string): Promise<string>;
  /**
   * True when `password` matches `hash`. With `hash` null (no such person, or no password), it
   * verifies against a fixed dummy hash and returns false, taking about the same time, so a
   * wrong email and a wrong password cannot be told apart by timing. Never throws for a
   * malformed hash (false).
   */
  verify(hash: string | null, password: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// OAuth 2.0 for MCP clients (DESIGN §2b)
// ---------------------------------------------------------------------------------------------

/**
 * OAuth clients (global: registration has no workspace), authorization codes, grants, the
 * grants' access credentials and refresh tokens. Codes and refresh tokens are stored only as
 * keyed hashes. Writes that must happen once are single guarded statements: `consumeCode`
 * (consume-once) and `spendRefreshToken` (rotate-once); of two concurrent calls with the same
 * code or token exactly one wins, and the loser sees the winner's committed write.
 */
export interface OAuthStore {
  /** Inserts a client. */
  insertClient(p: { client: OAuthClient }): Promise<void>;
  /** The client, or null (never registered, or expired and deleted). */
  findClient(p: { clientId: string }): Promise<OAuthClient | null>;
  /** Sets the client's lastUsedAt to `now`. */
  touchClient(p: { clientId: string; now: Date }): Promise<void>;
  /**
   * Deletes up to `limit` idle clients: never used and registered before `unusedBefore`, or last
   * used before `idleBefore`. Returns how many. Their grants stay (Connections keeps the name).
   */
  deleteIdleClients(p: { unusedBefore: Date; idleBefore: Date; limit: number }): Promise<number>;

  /** Inserts an authorization code. */
  insertCode(p: { code: AuthorizationCode }): Promise<void>;
  /**
   * Consumes the code with that hash, any workspace, in one guarded write: sets consumedAt = now
   * where it is not yet consumed. `consumed` for the winner (the code as updated, whether or not
   * it expired: the caller checks); `already_consumed` (with the stored code) when it was
   * consumed before, also for the loser of two concurrent consumptions once the winner
   * committed; `not_found` otherwise.
   */
  consumeCode(p: { codeHash: string; now: Date }): Promise<{ kind: "consumed"; code: AuthorizationCode } | { kind: "already_consumed"; code: AuthorizationCode } | { kind: "not_found" }>;
  /** Records the grant a consumed code's exchange created. */
  setCodeGrant(p: { workspaceId: string; codeId: string; grantId: string }): Promise<void>;
  /** Deletes up to `limit` codes (any workspace) that expired before `before`; returns how many. */
  purgeCodes(p: { before: Date; limit: number }): Promise<number>;

  /** Inserts a grant. */
  insertGrant(p: { grant: OAuthGrant }): Promise<void>;
  /** The grant, or null (missing or of another workspace). */
  findGrant(p: { workspaceId: string; grantId: string }): Promise<OAuthGrant | null>;
  /** The workspace's grants, newest first (id descending); `after` is a grant id. */
  listGrants(p: { workspaceId: string; after: string | null; limit: number }): Promise<OAuthGrant[]>;
  /** The newest grant of the workspace for that client, any state, or null. */
  latestGrantForClient(p: { workspaceId: string; clientId: string }): Promise<OAuthGrant | null>;
  /** Records a token issue under an unrevoked grant: lastUsedAt = now, refreshExpiresAt as given. */
  recordGrantUse(p: { workspaceId: string; grantId: string; now: Date; refreshExpiresAt: Date }): Promise<void>;
  /**
   * Revokes an unrevoked grant (revokedAt = now, revokedReason = cause; a guarded write: of two
   * concurrent revocations one wins), every refresh token of it (revokedAt = now) and every
   * active access credential linked to it (state revoked). Returns the grant and the credentials
   * it revoked; `already_revoked` (with the grant) or `not_found` otherwise. Call it inside a
   * transaction: its writes belong together.
   */
  revokeGrant(p: { workspaceId: string; grantId: string; cause: GrantRevocationCause; now: Date }): Promise<{ kind: "revoked"; grant: OAuthGrant; credentials: Credential[] } | { kind: "already_revoked"; grant: OAuthGrant } | { kind: "not_found" }>;

  /** Links an access credential to the grant it was issued under. */
  linkAccessCredential(p: { workspaceId: string; grantId: string; credentialId: string }): Promise<void>;
  /** The grant an access credential was issued under, or null (not an OAuth access token). */
  grantIdOfCredential(p: { workspaceId: string; credentialId: string }): Promise<string | null>;

  /** Inserts a refresh token generation. */
  insertRefreshToken(p: { token: RefreshTokenRecord }): Promise<void>;
  /**
   * Rotate-once: in one guarded write, spends the token with that hash (spentAt = now) when it
   * belongs to `clientId`, is unspent, unrevoked and unexpired, and forgets every earlier
   * generation of its grant. `spent` (the token as updated) for the winner; otherwise
   * `refused` with the stored token (or null when no token has that hash): the caller tells a
   * replay of the most recently spent token from an expired, revoked or foreign one.
   */
  spendRefreshToken(p: { tokenHash: string; clientId: string; now: Date }): Promise<{ kind: "spent"; token: RefreshTokenRecord } | { kind: "refused"; token: RefreshTokenRecord | null }>;
  /** The refresh token with that hash (any workspace), or null. */
  findRefreshToken(p: { tokenHash: string }): Promise<RefreshTokenRecord | null>;
}

// ---------------------------------------------------------------------------------------------
// People of a workspace: single-use tokens and membership (DESIGN §2b)
// ---------------------------------------------------------------------------------------------

/** Single-use tokens of people (password reset, invitation). Only keyed hashes are stored. */
export interface PersonTokenStore {
  /** Inserts a token. */
  insert(p: { token: PersonToken }): Promise<void>;
  /** The token with that hash (any state, any workspace), or null. */
  findByHash(p: { tokenHash: string }): Promise<PersonToken | null>;
  /**
   * Spends the token with that hash if it is unused and not expired at `now`: one conditional
   * write, so of two concurrent spends exactly one gets `spent`. `unusable` otherwise (unknown,
   * used, expired).
   */
  spend(p: { tokenHash: string; now: Date }): Promise<{ kind: "spent"; token: PersonToken } | { kind: "unusable" }>;
  /** How many tokens of `purpose` were issued to the person at or after `since`. */
  countIssuedSince(p: { workspaceId: string; personId: string; purpose: PersonTokenPurpose; since: Date }): Promise<number>;
  /** Marks every unused token of the person used at `now` (any purpose); returns how many. */
  spendAllOfPerson(p: { workspaceId: string; personId: string; now: Date }): Promise<number>;
  /** Deletes tokens that expired before `before`; returns how many. */
  purgeExpiredBefore(p: { before: Date }): Promise<number>;
}

/**
 * Sign-ups waiting for their email to be proven (DESIGN §2c). Not tied to a workspace (none
 * exists yet). Emails are not unique here: a pending sign-up never reserves its address.
 */
export interface PendingSignUpStore {
  /** Inserts a pending sign-up. */
  insert(p: { signUp: PendingSignUp }): Promise<void>;
  /** How many pending sign-ups of `email` (normalized) were created at or after `since`. */
  countSince(p: { email: string; since: Date }): Promise<number>;
  /**
   * Takes the pending sign-up with that token hash when it has not expired at `now`: deletes it
   * and returns it, in one conditional write, so of two concurrent takes exactly one gets it
   * (and a rolled-back transaction puts it back). Null when unknown, taken already or expired.
   */
  take(p: { tokenHash: string; now: Date }): Promise<PendingSignUp | null>;
  /** Deletes pending sign-ups that expired before `before`; returns how many. */
  purgeExpiredBefore(p: { before: Date }): Promise<number>;
}

/**
 * Identities at an OpenID Connect provider linked to people (DESIGN §2c). An (issuer, subject)
 * pair is linked to one person at most, across all workspaces. Removing or erasing a person
 * (WorkspacePeopleStore) deletes their identities.
 */
export interface LinkedIdentityStore {
  /**
   * Links the identity to its person. `already_linked` (nothing written) with the identity as
   * stored when that issuer and subject are linked already, to this person or another; of two
   * concurrent links of one pair exactly one gets `linked`.
   */
  link(p: { identity: LinkedIdentity }): Promise<{ kind: "linked" } | { kind: "already_linked"; identity: LinkedIdentity }>;
  /** The identity linked for that issuer and subject (any workspace), or null. */
  findBySubject(p: { issuer: string; subject: string }): Promise<LinkedIdentity | null>;
  /** The person's linked identities, oldest first. */
  listOfPerson(p: { workspaceId: string; personId: string }): Promise<LinkedIdentity[]>;
}

/**
 * The people of a workspace as its owners and admins manage them. Changes that could leave a
 * workspace without an owner are serialized per workspace (PostgreSQL: a lock on the workspace
 * row), so two owners demoting each other at once cannot both succeed.
 */
export interface WorkspacePeopleStore {
  /** The workspace's people, oldest first (then by id). */
  list(p: { workspaceId: string }): Promise<Person[]>;
  /** How many people the workspace has. */
  count(p: { workspaceId: string }): Promise<number>;
  /**
   * Sets the person's role. `last_owner` (nothing changed) when the person is the workspace's
   * only owner and `role` is not owner; `not_found` when missing or of another workspace.
   */
  setRole(p: { workspaceId: string; personId: string; role: Role }): Promise<{ kind: "changed"; before: Person; person: Person } | { kind: "last_owner" } | { kind: "not_found" }>;
  /**
   * Removes the person with their sessions, recovery codes, tokens and linked identities. `last_owner` (nothing
   * removed) when the person is the workspace's only owner; `not_found` when missing.
   */
  remove(p: { workspaceId: string; personId: string }): Promise<{ kind: "removed"; person: Person } | { kind: "last_owner" } | { kind: "not_found" }>;
  /**
   * Erases the person (DELETE /v1/me) like `remove` but whatever their role: the person, their
   * sessions, recovery codes, tokens and linked identities are deleted. `wasLastOwner` tells whether the workspace
   * has no owner left. `not_found` when missing.
   */
  erase(p: { workspaceId: string; personId: string }): Promise<{ kind: "erased"; person: Person; wasLastOwner: boolean } | { kind: "not_found" }>;
}

/**
 * Closing a workspace, freezing it when its last owner is erased, and deleting a closed
 * workspace's payloads (DESIGN §2b). Each write is a few statements that the caller runs in one
 * transaction.
 */
export interface WorkspaceLifecycleStore {
  /**
   * Closes the workspace (state closed, closedAt = now) and revokes every AI account that is not
   * revoked and every active credential; returns the ids revoked. `already_closed` (nothing
   * changed) or `not_found`.
   */
  close(p: { workspaceId: string; now: Date }): Promise<{ kind: "closed"; workspace: Workspace; accountIds: string[]; credentialIds: string[] } | { kind: "already_closed"; workspace: Workspace } | { kind: "not_found" }>;
  /**
   * Freezes the workspace (a closed one stays closed) and revokes every AI account and active
   * credential; returns the workspace and the ids revoked, or null when it does not exist.
   */
  freezeAndRevoke(p: { workspaceId: string; now: Date }): Promise<{ workspace: Workspace; accountIds: string[]; credentialIds: string[] } | null>;
  /** Ids of workspaces closed at or before `closedBefore` whose payloads are not deleted yet, oldest closing first. */
  dueForPayloadDeletion(p: { closedBefore: Date; limit: number }): Promise<string[]>;
  /**
   * Deletes up to `limit` message payloads of the workspace (the payload becomes JSON null; the
   * message's envelope, states and audit rows stay). When none was left, records that the
   * workspace's payloads are deleted (`done`), so it is not due any more.
   */
  deletePayloads(p: { workspaceId: string; now: Date; limit: number }): Promise<{ deleted: number; done: boolean }>;
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

/** The result of a guarded lease write: the updated record, or what the store saw instead. */
export type LeaseWriteResult =
  | { ok: true; message: MessageRecord }
  /** Nothing was written. `snapshot` is the message as it stands (null when missing or not the caller's) and `now` the clock the guard used. */
  | { ok: false; snapshot: MessageRecord | null; now: Date };

/** What `MessageStore.acceptSend` did. */
export type AcceptSendResult =
  | { kind: "accepted"; message: MessageRecord }
  | { kind: "idempotency_exists"; record: IdempotencyRecord }
  | { kind: "recipient_gone" }
  | { kind: "policy_unacknowledged" }
  /** The caller guard failed (the sender's account or workspace is not active): nothing was written. */
  | { kind: "caller_refused" };

/** Exact-match filters of a message list: each null or absent matches every message. */
export interface MessageMatch {
  recipientName?: string | null;
  senderName?: string | null;
  template?: string | null;
}

/** Messages waiting in a workspace: per recipient (pending, held) and the dead letters. */
export interface WaitingCounts {
  recipients: { accountId: string; friendlyName: string; pending: number; held: number }[];
  deadLettered: number;
}

/**
 * Messages and their leases. `caller` (send, claim, ack): when given, the write happens only if
 * that account is active and its workspace active, read in the same statement (the request's
 * one statement, docs/performance.md lever 3); a claim or ack whose caller guard fails writes
 * nothing and answers as if nothing was claimable or held, and the core then checks the caller
 * afresh (`verifyCaller`) before answering.
 */
export interface MessageStore {
  /**
   * The whole write of a send, atomically (one statement in PostgreSQL): when `idempotency` is
   * given, insert it unless the key exists; then the message, its audit row, and one outbox row
   * per live webhook of the recipient; then wake the recipient's waiters on commit. Its guards,
   * checked in the same statement: the recipient is still addressable under the resolved name
   * (`message.recipientId` holds `message.recipientName` and is not revoked), and the sender
   * has acknowledged the current version of every required policy of the workspace.
   * - `idempotency_exists`: the key was already stored (possibly by a concurrent request that
   *   committed first; the call waits for it): nothing else was written. A stored key wins over
   *   a failed guard.
   * - `recipient_gone`: the recipient is no longer addressable under that name (revoked or
   *   renamed since resolution): nothing was written.
   * - `policy_unacknowledged`: the sender has not acknowledged a required policy: nothing was
   *   written.
   * - `caller_refused`: with `caller`, the sender's account is not active in an active
   *   workspace (checked in the same statement, before the key): nothing was written. The
   *   message row's sender name is then the account's name as the statement reads it.
   */
  acceptSend(p: { message: NewMessage; audit: NewAuditEntry; idempotency: IdempotencyRecord | null; caller?: CallerGuard | null }): Promise<AcceptSendResult>;

  /**
   * Claims up to `max` claimable messages of the recipient in dequeue order (priority
   * descending, accepted time ascending, id ascending), skipping rows other claimers hold
   * locks on. Claimable: stored state pending with visibleAt <= now, or held with the lease run
   * out (visibleAt <= now), and not expired. Each claimed message gets a fresh lease id,
   * visibleAt = now + visibilityTimeoutMs, leaseClaimedAt = now, leaseExtensions = 0,
   * deliveryCount + 1, and one audit row `message.claimed` (ids from `auditIds` in order).
   * A candidate whose deliveryCount is already >= maxDeliveries is dead-lettered instead (audit
   * row `message.dead_lettered`) and reported in `deadLettered`.
   * Concurrency: two concurrent claims never return the same message (SKIP LOCKED).
   */
  claimBatch(p: { workspaceId: string; recipientId: string; max: number; visibilityTimeoutMs: number; maxDeliveries: number; auditIds: readonly string[]; requestId: string | null; credentialId: string | null; caller?: CallerGuard | null }): Promise<{ claimed: MessageRecord[]; deadLettered: string[] }>;

  /**
   * Acknowledges a held message: guarded by recipient, lease id and lease still live
   * (visibleAt > now) and not expired, in one statement with its audit row. Sets state
   * acknowledged, acknowledgedAt = now, outcomeSummary.
   */
  ackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry; caller?: CallerGuard | null }): Promise<LeaseWriteResult>;

  /**
   * Acknowledges several held messages of one recipient at once (one statement in PostgreSQL):
   * each item guarded on its own exactly as `ackIfHeld` (its own lease, live and not expired),
   * each acknowledged item with its own audit row. Returns one result per item, in item order:
   * the acknowledged message, or the snapshot and clock explaining why that item's guard matched
   * nothing. Message ids must be distinct (the caller removes repeats).
   */
  ackBatchIfHeld(p: { workspaceId: string; recipientId: string; items: readonly { messageId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry }[]; caller?: CallerGuard | null }): Promise<LeaseWriteResult[]>;

  /**
   * Declines a held message: guarded like ack, plus no nack of this message within
   * `minIntervalMs` before now, and now + redeliverAfterMs before expiry. Sets state pending,
   * visibleAt = now + redeliverAfterMs, lastNackedAt = now, clears the lease; writes the audit
   * row; wakes waiters when the message is claimable at once.
   */
  nackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; redeliverAfterMs: number; minIntervalMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult>;

  /**
   * Extends a held lease: guarded like ack, plus no extension within `minIntervalMs`, fewer
   * than `maxExtensions` so far, new expiry = min(now + visibilityTimeoutMs, leaseClaimedAt +
   * cumulativeCapMs) strictly later than the current one, and new expiry <= expiresAt. Sets
   * visibleAt to the new expiry, leaseExtensions + 1, lastExtendedAt = now; writes the audit row.
   */
  extendIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; visibilityTimeoutMs: number; minIntervalMs: number; maxExtensions: number; cumulativeCapMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult>;

  /** The message if `accountId` is its sender or recipient (null: any message of the workspace, for a person's session), else null. */
  findForParticipant(p: { workspaceId: string; messageId: string; accountId: string | null }): Promise<MessageRecord | null>;

  /** The store's clock (the database clock for PostgreSQL). */
  now(): Promise<Date>;

  /**
   * Messages the account sent or received (role), newest first (id descending), optionally
   * filtered by effective state and by `match` (the names and template as the envelope records
   * them at send time). `after` is a message id. A null account: every message of the workspace.
   */
  listForParticipant(p: { workspaceId: string; accountId: string | null; role: "sent" | "received" | "any"; state: MessageState | null; match?: MessageMatch; after: string | null; limit: number }): Promise<MessageRecord[]>;

  /**
   * What waits in the workspace (one read): per recipient that has any, its pending and held
   * messages not yet expired at `now`, under the account's current name, by name; and the
   * workspace's dead-lettered messages.
   */
  countWaiting(p: { workspaceId: string; now: Date }): Promise<WaitingCounts>;

  /** Dead-lettered messages of the workspace, newest first; `after` is a message id. */
  listDeadLettered(p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]>;

  /** Returns a dead-lettered message to pending (deliveryCount 0, visible now), with its audit row; null when it is not dead-lettered. Wakes waiters. */
  release(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<MessageRecord | null>;

  /** Deletes a dead-lettered message (its audit rows remain), with its audit row; false when it is not dead-lettered. */
  purge(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<boolean>;

  /**
   * Withholds a message after a legal notice (DESIGN §2b): its state becomes `withheld` (so it
   * leaves the claim index and every lease write's guard), the state it had is kept for the
   * restoration, a lease it was held under ends, and its pending or retrying webhook deliveries
   * die (last error "legally withheld"); with its audit row, in one statement.
   * `already_withheld` writes nothing.
   */
  withhold(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "withheld"; message: MessageRecord } | { kind: "already_withheld" } | { kind: "not_found" }>;

  /**
   * Lifts a withholding: the message returns to the state it had (a held one to pending, visible
   * at once, since its lease ended), with its audit row; wakes waiters when it is claimable.
   * `not_withheld` writes nothing.
   */
  restoreWithheld(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "restored"; message: MessageRecord } | { kind: "not_withheld" }>;

  /**
   * Marks up to `auditIds.length` pending or held messages past their expiry as expired, each
   * with an audit row `message.expired` (no actor), any workspace. Returns how many it marked.
   */
  expireDue(p: { auditIds: readonly string[] }): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Audit log
// ---------------------------------------------------------------------------------------------

/** A sealer's exclusive view of one workspace's chain, valid inside `AuditLog.withSealLock`. */
export interface AuditSealSession {
  /** The last sealed row's seq and hash, or null when nothing is sealed yet. */
  head(): Promise<{ seq: number; hash: string } | null>;
  /** Up to `limit` unsealed rows of the workspace (rows without a chain link), in seal order (occurredAt, then id). */
  unsealed(p: { limit: number }): Promise<AuditEntry[]>;
  /**
   * Appends the chain links (seq, the row's id, prevHash, hash, sealedAt) of the given rows to
   * the chain, which is kept apart from the rows: audit rows are never updated once inserted.
   */
  appendLinks(p: { links: readonly AuditChainLink[]; sealedAt: Date }): Promise<void>;
  /**
   * Sealed rows with seq > afterSeq, in seq order, at most `limit` (as `AuditLog.readChain`, in
   * this session's transaction): how the Merkle tree catches up with a chain sealed before the
   * tree existed (migration 0019).
   */
  linkedRows(p: { afterSeq: number; limit: number }): Promise<AuditEntry[]>;
  /** How many leaves the workspace's Merkle tree holds; leaf i is the row at seq i + 1. */
  treeSize(): Promise<number>;
  /** Stored hashes of the tree's complete subtrees, as `AuditTree.readHashes`, in this session's transaction. */
  readTreeHashes(p: { nodes: readonly TreeNode[] }): Promise<Uint8Array[]>;
  /**
   * Appends leaves to the tree: leaf `firstLeaf + i` with `hashes[i]`, the hashes appending it
   * stores (its leaf hash, then each subtree it completes, level by level: `TreeFrontier.append`).
   * `firstLeaf` is the tree's size; a leaf is stored once (a second append of it throws).
   */
  appendTreeHashes(p: { firstLeaf: number; hashes: readonly (readonly Uint8Array[])[] }): Promise<void>;
  /** Makes `checkpoint` the workspace's latest signed checkpoint (the sealer signs one per sealing transaction). */
  publishCheckpoint(p: { checkpoint: StoredCheckpoint }): Promise<void>;
  /**
   * Takes the workspace off the tree's backlog (the workspaces whose chain migration 0019 found
   * without a tree), once the tree has caught up with the chain or cannot (a linked row is gone).
   */
  treeCaughtUp(): Promise<void>;
}

/** A signed checkpoint of a workspace's log, as the sealer published it. */
export interface StoredCheckpoint {
  treeSize: number;
  /** The tree's root hash (32 bytes). */
  rootHash: Uint8Array;
  /** The signed note (C2SP tlog-checkpoint), exactly as served. */
  note: string;
  signedAt: Date;
}

/**
 * The read side of each workspace's Merkle tree over its audit rows in seq order (DESIGN §2c
 * Receipts; docs/receipts.md): the hashes of complete subtrees, stored once by the sealer as it
 * appends leaves, and the latest signed checkpoint. A proof reads O(log n) hashes in one call.
 */
export interface AuditTree {
  /** The workspace's latest signed checkpoint, or null before the sealer has published one. */
  latestCheckpoint(p: { workspaceId: string }): Promise<StoredCheckpoint | null>;
  /**
   * The stored hashes of complete subtrees, one per node, in the order asked, in one round trip.
   * @throws Error when a node is not stored (beyond the tree): callers ask only for nodes inside
   * a published checkpoint's tree.
   */
  readHashes(p: { workspaceId: string; nodes: readonly TreeNode[] }): Promise<Uint8Array[]>;
}

/** One link of a workspace's hash chain: the row it seals (`auditId`) at position `seq`. */
export interface AuditChainLink {
  auditId: string;
  seq: number;
  prevHash: string;
  hash: string;
}

/**
 * The per-workspace audit log and its hash chain. Rows are insert-only; the chain is a separate
 * sequence of links (seq, row id, prevHash, hash) appended by the sealer. Every read returns a
 * row with its link's fields (`seq`, `prevHash`, `hash`, `sealedAt`), null until sealed.
 */
export interface AuditLog {
  /** Appends a row (inside the caller's transaction when given a transactional store). */
  append(p: { entry: NewAuditEntry }): Promise<void>;
  /**
   * Rows newest first (occurredAt descending, id descending), optionally filtered by activity
   * and by message; operator-significant rows only when asked. `after` is an opaque position
   * returned by `positionOf`.
   */
  list(p: { workspaceId: string; activity: string | null; messageId: string | null; includeOperatorSignificant: boolean; after: string | null; limit: number }): Promise<AuditEntry[]>;
  /** The keyset position of a row for `list`'s `after`. */
  positionOf(entry: AuditEntry): string;
  /** Every row about one message, oldest first (its timeline). */
  timeline(p: { workspaceId: string; messageId: string }): Promise<AuditEntry[]>;
  /** Sealed rows in seq order, seq > afterSeq, at most limit (a link whose row is gone is skipped: a gap in seq). */
  readChain(p: { workspaceId: string; afterSeq: number; limit: number }): Promise<AuditEntry[]>;
  /**
   * Workspaces the sealer has work in (at most limit): those with unsealed rows, and those whose
   * Merkle tree has not caught up with a chain sealed before it existed (migration 0019's backlog).
   */
  workspacesToSeal(p: { limit: number }): Promise<string[]>;
  /**
   * Runs `fn` holding the workspace's seal lock (an advisory lock in PostgreSQL) inside one
   * transaction; returns null without running it when another sealer holds the lock.
   */
  withSealLock<T>(p: { workspaceId: string }, fn: (session: AuditSealSession) => Promise<T>): Promise<T | null>;
}

// ---------------------------------------------------------------------------------------------
// Idempotency
// ---------------------------------------------------------------------------------------------

/** Idempotency keys, scoped by workspace and calling AI account. */
export interface IdempotencyStore {
  /** The unexpired record for the key, or null. */
  find(p: { workspaceId: string; accountId: string; key: string }): Promise<IdempotencyRecord | null>;
  /**
   * Inserts an in-progress record unless an unexpired one exists (an expired one is replaced).
   * Inside a transaction, a concurrent claim of the same key waits until this transaction ends
   * and then sees the committed record (`exists`), or claims it if this one rolled back.
   */
  claim(p: { record: IdempotencyRecord }): Promise<{ kind: "claimed" } | { kind: "exists"; record: IdempotencyRecord }>;
  /** Stores the response of a claimed key. */
  complete(p: { workspaceId: string; accountId: string; key: string; status: number; bodyText: string }): Promise<void>;
  /** Deletes records that expired before `now`; returns how many. */
  purgeExpired(p: { now: Date; limit: number }): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Webhooks and their outbox
// ---------------------------------------------------------------------------------------------

/** Webhooks and the management reads of their outbox. */
export interface WebhookStore {
  /** Inserts a webhook. */
  insert(p: { webhook: WebhookRecord }): Promise<void>;
  /** The webhook unless it is missing or deleted, else null. */
  findLive(p: { workspaceId: string; webhookId: string }): Promise<WebhookRecord | null>;
  /** Live webhooks of the workspace, oldest first (id ascending), optionally of one AI account; `after` is a webhook id. */
  list(p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<WebhookRecord[]>;
  /** Sets the given fields (and updatedAt = now) of a live webhook; null when missing or deleted. */
  update(p: { workspaceId: string; webhookId: string; changes: { url?: string; name?: string; filter?: WebhookFilter; maxAttempts?: number }; now: Date }): Promise<WebhookRecord | null>;
  /**
   * Replaces the signing keys of a live webhook whose current key (first) is still
   * `expectedCurrentKeyId`: a compare-and-set, so of two concurrent rotations one wins and the
   * other gets `conflict` (in PostgreSQL the loser waits on the row lock, then sees the new key).
   */
  replaceSigningKeys(p: { workspaceId: string; webhookId: string; expectedCurrentKeyId: string; keys: SigningKey[]; now: Date }): Promise<{ kind: "rotated"; webhook: WebhookRecord } | { kind: "conflict" } | { kind: "not_found" }>;
  /**
   * Soft-deletes a live webhook (deletedAt = now) and deletes its pending and retrying outbox
   * rows in the same statement; returns the webhook and how many rows it purged, or null.
   * A send after this writes no outbox row for it.
   */
  softDelete(p: { workspaceId: string; webhookId: string; now: Date }): Promise<{ webhook: WebhookRecord; purged: number } | null>;
  /**
   * Outbox counts by state, the last success (deliveredAt), the last failed attempt of a delivery
   * that is retrying or dead (with its lastError), and up to `recentDeadLimit` dead deliveries
   * (newest first).
   */
  stats(p: { workspaceId: string; webhookId: string; recentDeadLimit: number }): Promise<WebhookStats>;
  /** The webhook's deliveries, newest first (id descending), optionally of one state; `after` is a delivery id. */
  listDeliveries(p: { workspaceId: string; webhookId: string; state: DeliveryState | null; after: string | null; limit: number }): Promise<DeliveryRecord[]>;
}

/**
 * The dispatcher's side of the webhook outbox. Rows are written by `MessageStore.acceptSend`
 * (one per live webhook of the recipient whose filter matches), in the send's transaction.
 */
export interface WebhookOutbox {
  /**
   * Claims up to `max` due deliveries (pending or retrying, nextAttemptAt <= now) of live
   * webhooks, any workspace, oldest due first, skipping rows other claimers lock (SKIP LOCKED).
   * Each claimed row gets nextAttemptAt = now + leaseMs and `claimToken`: no other claimer takes
   * it until that lease runs out, so a crashed dispatcher's rows are retried after the lease.
   */
  claimDue(p: { max: number; leaseMs: number; claimToken: string }): Promise<ClaimedDelivery[]>;
  /** Marks a claimed delivery delivered (attempts + 1, deliveredAt = now); false when the claim was lost (re-claimed, purged). */
  recordSuccess(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number }): Promise<boolean>;
  /**
   * Records a failed attempt of a claimed delivery (attempts + 1, lastError, lastStatus): state
   * retrying with nextAttemptAt = now + retryInMs, or dead (deadAt = now) when `retryInMs` is
   * null. Returns the updated row, or null when the claim was lost.
   */
  recordFailure(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number | null; error: string; retryInMs: number | null }): Promise<DeliveryRecord | null>;
  /** Deletes up to `limit` delivered or dead deliveries (any workspace) that finished before `finishedBefore`; returns how many. */
  purgeFinished(p: { finishedBefore: Date; limit: number }): Promise<number>;
}

/** Why an outbound webhook request got no HTTP response. */
export type WebhookFailureReason = "invalid_url" | "destination_not_public" | "dns_failure" | "connection_failed" | "timeout";

/**
 * Outbound HTTP for webhooks (the probe and deliveries). Adapters must refuse destinations that
 * resolve to non-public addresses at connect time (SSRF guard), never follow redirects, and give
 * up after `timeoutMs`.
 */
export interface WebhookTransport {
  /** POSTs `body` (application/json) with `headers`; never rejects. */
  post(p: { url: string; headers: Record<string, string>; body: string; timeoutMs: number }): Promise<{ kind: "response"; status: number } | { kind: "failed"; reason: WebhookFailureReason; detail?: string }>;
}

// ---------------------------------------------------------------------------------------------
// Mail
// ---------------------------------------------------------------------------------------------

/**
 * Outgoing mail (DESIGN §2b "Mail"): password-reset and invitation links, notices, webhook
 * alerts. Adapters: SMTP through nodemailer when SMTP_URL is set, else one .eml file per mail
 * under `<AGENTQ_DATA_DIR>/mail/` (apps/server); InMemoryMailer in tests. An adapter adds the
 * sender address, the date and a message id, and never writes a mail's content to a log.
 * Use cases call it through `sendMail`, after the transaction that decided the mail commits.
 */
export interface Mailer {
  /**
   * Hands one message over (accepted by the SMTP server, or the file completely written).
   * Resolves when it is; rejects when it could not be, with nothing half-sent. Safe to call
   * concurrently. Not idempotent: two calls send two mails.
   */
  send(message: MailMessage): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// OIDC sign-in
// ---------------------------------------------------------------------------------------------

/**
 * One OpenID Connect identity provider (SVC_OIDC_ISSUER, SVC_OIDC_CLIENT_ID,
 * SVC_OIDC_CLIENT_SECRET, SVC_OIDC_LABEL): the authorization code flow with PKCE (S256), state
 * and nonce. Adapter: `openid-client` (apps/server). The rules around it (who is signed in or up,
 * the return address, the session) are the core's.
 */
export interface OidcProvider {
  /** The name of the provider shown to people ("Sign in with ..."). */
  readonly label: string;
  /**
   * A fresh authorization request to `redirectUri`: the provider URL to send the browser to, and
   * the attempt (random state, nonce, PKCE verifier) to keep until the callback. Rejects when the
   * provider cannot be reached (its discovery document is fetched once, then cached).
   */
  authorizationRequest(p: { redirectUri: string }): Promise<{ url: string; attempt: OidcAttempt }>;
  /**
   * Completes an attempt from the callback URL the browser arrived at (with its `code`, `state`,
   * `iss` or `error` parameters): checks the state, exchanges the code with the PKCE verifier,
   * verifies the ID token (signature, issuer, audience, expiry, nonce) and reads the claims.
   * `refused` (with a short reason for the audit row, never a token) when the callback or the
   * provider's answer fails a check or the provider reports an error; rejects only when the
   * provider cannot be reached.
   */
  completeAuthorization(p: { callbackUrl: string; redirectUri: string; attempt: OidcAttempt }): Promise<{ kind: "identified"; identity: OidcIdentity } | { kind: "refused"; reason: string }>;
}

// ---------------------------------------------------------------------------------------------
// Transactions and wake-ups
// ---------------------------------------------------------------------------------------------

/** Every store, bound either to the pool or to one transaction. */
export interface Stores {
  workspaces: WorkspaceStore;
  accounts: AccountStore;
  credentials: CredentialStore;
  messages: MessageStore;
  audit: AuditLog;
  auditTree: AuditTree;
  idempotency: IdempotencyStore;
  webhooks: WebhookStore;
  outbox: WebhookOutbox;
  policies: PolicyStore;
  plans: PlanStore;
  projects: ProjectStore;
  decisions: DecisionLogStore;
  recordEvents: RecordEventStore;
  buildSessions: BuildSessionStore;
  backlog: BacklogStore;
  notices: NoticeStore;
  people: PersonStore;
  personSessions: PersonSessionStore;
  signInThrottle: SignInThrottleStore;
  anonymousLimits: AnonymousLimitStore;
  lessons: LessonStore;
  candidates: LessonCandidateStore;
  rules: RuleStore;
  usage: UsageStore;
  imports: ImportStore;
  oauth: OAuthStore;
  personTokens: PersonTokenStore;
  pendingSignUps: PendingSignUpStore;
  linkedIdentities: LinkedIdentityStore;
  workspacePeople: WorkspacePeopleStore;
  workspaceLifecycle: WorkspaceLifecycleStore;
}

/** Runs a unit of work in one transaction. */
export interface TxRunner {
  /**
   * Runs `fn` with stores bound to a new transaction; commits when it resolves, rolls back
   * (leaving none of its writes) when it throws, and rethrows.
   */
  run<T>(fn: (stores: Stores) => Promise<T>): Promise<T>;
}

/** Wakes long-polling claimers when messages become claimable (LISTEN/NOTIFY in PostgreSQL). */
export interface WakeupNotifier {
  /**
   * Resolves when messages may have become claimable for the recipient, when `timeoutMs`
   * passes, or when `signal` aborts, whichever comes first. Never rejects. Spurious wake-ups
   * are allowed; callers claim again and wait again.
   */
  waitForMessages(p: { workspaceId: string; recipientId: string; timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  /** Wakes the recipient's waiters (in every process sharing the adapter's channel). */
  notifyMessages(p: { workspaceId: string; recipientId: string }): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Guard rails: policies, plans, rate limits, sanctions screening
// ---------------------------------------------------------------------------------------------

/** Versioned workspace policies and the AI accounts' acknowledgements of them. */
export interface PolicyStore {
  /**
   * Publishes a new version of the workspace's policy named `name`: version 1 under the new id
   * `newId` when the name is new, else the current version + 1 under the policy's existing id.
   * `required` and `body` are those of the new version. Concurrent publishes of one name are
   * serialized (each gets its own version; in PostgreSQL a row lock on the policy).
   */
  publish(p: { workspaceId: string; name: string; newId: string; required: boolean; body: string; publishedAt: Date; publishedBy: string | null }): Promise<Policy>;
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

// ---------------------------------------------------------------------------------------------
// Session-state records (SESSION-STATE.md): projects, the decision log, record events
// ---------------------------------------------------------------------------------------------

/** Projects of a workspace: the unit every session-state record belongs to. */
export interface ProjectStore {
  /**
   * Inserts a project; `slug_taken` (with the holder's id) when the workspace has a project with
   * that slug, archived ones included. A project inserted with `isDefault` becomes the default
   * only when the workspace has none at that moment (serialized against other default changes);
   * `project` is the record as stored.
   */
  insert(p: { project: Project }): Promise<{ kind: "created"; project: Project } | { kind: "slug_taken"; existingId: string }>;
  /** The project, or null (missing or of another workspace). */
  find(p: { workspaceId: string; projectId: string }): Promise<Project | null>;
  /** The workspace's default project, or null. */
  findDefault(p: { workspaceId: string }): Promise<Project | null>;
  /** Projects of the workspace by id ascending, optionally of one state or only `onlyId`; `after` is a project id. */
  list(p: { workspaceId: string; state: ProjectState | null; onlyId: string | null; after: string | null; limit: number }): Promise<Project[]>;
  /** Active projects of the workspace (the plan cap counts them). */
  countActive(p: { workspaceId: string }): Promise<number>;
  /**
   * Applies `changes` (and version + 1, updatedAt = now) to an active project, guarded by
   * `expectedVersion` when given: `version_conflict` carries the current record, `archived` a
   * project that is archived.
   */
  update(p: { workspaceId: string; projectId: string; expectedVersion: number | null; changes: ProjectChanges; now: Date }): Promise<{ kind: "updated"; project: Project } | { kind: "version_conflict"; current: Project } | { kind: "archived" } | { kind: "not_found" }>;
  /**
   * Moves a project between states in one guarded write: archive needs state active and not the
   * default (`is_default`), unarchive state archived. Version + 1.
   */
  setState(p: { workspaceId: string; projectId: string; to: ProjectState; now: Date }): Promise<{ kind: "changed"; project: Project } | { kind: "wrong_state"; current: Project } | { kind: "is_default" } | { kind: "not_found" }>;
  /**
   * Makes an active project the workspace's default and clears the previous default in the same
   * transaction (at most one default per workspace; in PostgreSQL a partial unique index).
   * Repeating it on the default changes nothing (`changed: false`).
   */
  makeDefault(p: { workspaceId: string; projectId: string; now: Date }): Promise<{ kind: "default"; project: Project; previousId: string | null; changed: boolean } | { kind: "archived" } | { kind: "not_found" }>;
  /**
   * The next number of a per-project sequence (decisions, backlog items), from 1. Serialized per
   * project (a row lock in PostgreSQL, held to the end of the caller's transaction).
   */
  nextNumber(p: { workspaceId: string; projectId: string; sequence: "decision" | "backlog" }): Promise<number>;
}

/**
 * The append-only decision log. Entries and amendments are only ever inserted; PostgreSQL
 * refuses UPDATE and DELETE of them with triggers. A correction supersedes its chain's tip;
 * chains stay linear (one successor per entry: a unique index on supersedes_id).
 */
export interface DecisionLogStore {
  /**
   * Appends an entry. For a correction (`supersedesId` set): `not_tip` with the chain's current
   * tip when `supersedesId` already has a successor (decided by the unique index under
   * concurrency: of two corrections of one tip, one wins).
   */
  append(p: { entry: DecisionEntry }): Promise<{ kind: "appended" } | { kind: "not_tip"; currentId: string }>;
  /** The entry with its successor, or null. */
  find(p: { workspaceId: string; id: string }): Promise<DecisionRow | null>;
  /** Every entry of a chain, oldest first. */
  chain(p: { workspaceId: string; chainRootId: string }): Promise<DecisionRow[]>;
  /** Entries of a project, newest first (id descending), filtered; `after` is an entry id. */
  list(p: { workspaceId: string; projectId: string; filters: DecisionListFilters; after: string | null; limit: number }): Promise<DecisionRow[]>;
  /**
   * Full-text search of a project's entries (title, context, decision, rationale, tags), best
   * first, each with a rank and a snippet whose matched words are wrapped in `**`; `offset`
   * pages through the ranking.
   */
  search(p: { workspaceId: string; projectId: string; q: string; offset: number; limit: number }): Promise<DecisionSearchHit[]>;
  /** Per-author figures of a project's log, by entries descending then id. */
  authors(p: { workspaceId: string; projectId: string }): Promise<DecisionAuthor[]>;
  /** Entries per UTC day of `decidedAt` in [since, until), days without entries left out (`day` is YYYY-MM-DD). */
  countByDay(p: { workspaceId: string; projectId: string; since: Date; until: Date }): Promise<{ day: string; count: number }[]>;
  /** Entries of a project. */
  count(p: { workspaceId: string; projectId: string }): Promise<number>;
  /** Entries recorded in one of the given build sessions, by kind. */
  countForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<{ decisions: number; corrections: number }>;
  /** Appends a source amendment. */
  appendAmendment(p: { amendment: SourceAmendment }): Promise<void>;
  /** An entry's amendments, oldest first. */
  amendments(p: { workspaceId: string; entryId: string }): Promise<SourceAmendment[]>;
}

/** The change history of mutable session-state records (append-only). */
export interface RecordEventStore {
  /** Appends an event. */
  append(p: { event: RecordEvent }): Promise<void>;
  /** The newest `limit` events of one record, newest first. */
  listFor(p: { workspaceId: string; subjectType: string; subjectId: string; limit: number }): Promise<RecordEvent[]>;
  /** Every event that happened in one of the given build sessions, oldest first. */
  listForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<RecordEvent[]>;
  /** A project's events of one subject type and one of `eventTypes` with `since <= at <= until`, oldest first, at most `limit`. */
  listByType(p: { workspaceId: string; projectId: string; subjectType: string; eventTypes: readonly string[]; since: Date; until: Date; limit: number }): Promise<RecordEvent[]>;
}

/** The outcome of a compare-and-set write of a mutable record. */
export type ReplaceResult = { kind: "replaced" } | { kind: "conflict" };

/**
 * Build sessions. The core decides every state rule on a record it read; `replace` writes the
 * new record only when the stored `version` is still `expectedVersion` (compare-and-set), so a
 * concurrent write is never lost: the loser gets `conflict` and reads again.
 */
export interface BuildSessionStore {
  /** Inserts a session. */
  insert(p: { session: BuildSession }): Promise<void>;
  /** The session, or null. */
  find(p: { workspaceId: string; id: string }): Promise<BuildSession | null>;
  /**
   * Replaces a session whose stored version is `expectedVersion`. At most one session names a
   * given `previousSessionId` (a unique index in PostgreSQL): inserting a second continuation
   * is refused by `insertContinuation`.
   */
  replace(p: { session: BuildSession; expectedVersion: number }): Promise<ReplaceResult>;
  /**
   * In one transaction's terms: ends `predecessor` (replace under `expectedVersion`) and inserts
   * `successor`; `conflict` when the predecessor changed or already has a continuation.
   */
  insertContinuation(p: { predecessor: BuildSession; expectedVersion: number; successor: BuildSession }): Promise<ReplaceResult>;
  /** The project's most recently started session other than `excludeId`, or null. */
  latestInProject(p: { workspaceId: string; projectId: string; excludeId: string | null }): Promise<BuildSession | null>;
  /** The account's most recently started active session in the project, or null. */
  activeFor(p: { workspaceId: string; projectId: string; aiAccountId: string }): Promise<BuildSession | null>;
  /**
   * Sessions of a project, newest first (id descending), filtered; `liveness` compares
   * `lastPingAt` with `now - silenceMs` (active sessions only); `q` is full-text over title,
   * goal, summary, lead lines and current state. `after` is a session id.
   */
  search(p: { workspaceId: string; projectId: string; filters: BuildSessionFilters; now: Date; silenceMs: number; after: string | null; limit: number }): Promise<BuildSession[]>;
  /** Every session of a chain, oldest first. */
  chain(p: { workspaceId: string; chainRootId: string }): Promise<BuildSession[]>;
  /** Active sessions of a project. */
  countActive(p: { workspaceId: string; projectId: string }): Promise<number>;
  /** Sessions of a project last changed (`updatedAt`) in `[since, until]`, oldest first, at most `limit`. */
  touchedBetween(p: { workspaceId: string; projectId: string; since: Date; until: Date; limit: number }): Promise<BuildSession[]>;
}

/**
 * The backlog. The core decides transitions on a record it read; `replace` is a compare-and-set
 * on `version` that also never moves an item out of a terminal status (resolved, dismissed are
 * absorbing: in PostgreSQL a guarded UPDATE, CHECK constraints and a trigger).
 */
export interface BacklogStore {
  /** Inserts an item. */
  insert(p: { item: BacklogItem }): Promise<void>;
  /** The item, or null. */
  find(p: { workspaceId: string; id: string }): Promise<BacklogItem | null>;
  /** Replaces an item whose stored version is `expectedVersion` and whose stored status is not terminal unless unchanged. */
  replace(p: { item: BacklogItem; expectedVersion: number }): Promise<ReplaceResult>;
  /**
   * Items of a project, filtered and ordered (`priority`: priority then oldest; `newest`,
   * `oldest` by id; `updated`: lastActivityAt newest first); `offset` pages.
   */
  search(p: { workspaceId: string; projectId: string; filters: BacklogFilters; sort: BacklogSort; offset: number; limit: number }): Promise<BacklogItem[]>;
  /**
   * Items that are not terminal and inactive past their threshold at `now` (in_progress:
   * `thresholds.inProgressMs`, else `openMs`), most inactive first; snoozed ones (staleness
   * acknowledged until after `now`) only with `includeSnoozed`; optionally of one status or
   * assignee, or inactive for more than `olderThanMs`.
   */
  stale(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds; status: BacklogStatus | null; assignee: string | null; olderThanMs: number | null; includeSnoozed: boolean; offset: number; limit: number }): Promise<BacklogItem[]>;
  /** Items by status, and how many are stale (not snoozed) at `now`. */
  countByStatus(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds }): Promise<Record<BacklogStatus | "stale", number>>;
}

// ---------------------------------------------------------------------------------------------
// Notices (DESIGN §2b): DSA and DMCA notices, not scoped by workspace (the public files them)
// ---------------------------------------------------------------------------------------------

/**
 * Notices. The core decides every transition on a record it read; `replace` is a compare-and-set
 * on `version`, so of two concurrent writes (an operator's decision and a notifier's withdrawal,
 * two restoration passes) one wins and the other gets `conflict`. Unlike the other stores,
 * notices are found by id alone: the affected workspace is a field, set by the review.
 */
export interface NoticeStore {
  /** Inserts a notice. */
  insert(p: { notice: Notice }): Promise<void>;
  /** The notice, or null. */
  find(p: { noticeId: string }): Promise<Notice | null>;
  /** Replaces a notice whose stored version is `expectedVersion`. */
  replace(p: { notice: Notice; expectedVersion: number }): Promise<ReplaceResult>;
  /** Notices disclosed to the workspace (affected and disclosedAt set), newest first (id descending); `after` is a notice id. */
  listDisclosed(p: { workspaceId: string; after: string | null; limit: number }): Promise<Notice[]>;
  /** Every notice, newest first, optionally of one state; `after` is a notice id (the operator's list). */
  list(p: { state: NoticeState | null; after: string | null; limit: number }): Promise<Notice[]>;
  /** Notices received in [from, to), oldest first (the operator's report). */
  listReceivedBetween(p: { from: Date; to: Date }): Promise<Notice[]>;
  /** Contested DMCA notices whose restoration window opened at or before `now` and that have no court action, oldest window first. */
  dueRestorations(p: { now: Date; limit: number }): Promise<Notice[]>;
  /**
   * The agentq item a location names, in any workspace (or in `location.workspace_id` when
   * given), or null: a message, an AI account (by id, or by friendly name with workspace_id), a
   * workspace, or a session-state record (project, decision, build session, backlog item).
   * Templates and URLs are resolved by the core, not here.
   */
  locate(p: { location: NoticeLocation }): Promise<NoticeItem["resolved"]>;
}

// ---------------------------------------------------------------------------------------------
// Session-state records, part 2 (SESSION-STATE §6-8): lessons, candidates, rules
// ---------------------------------------------------------------------------------------------

/** Lessons and their append-only observations. A deleted lesson keeps its row (`deletedAt`), frees its slug and is left out of every list. */
export interface LessonStore {
  /** Inserts a lesson; `slug_taken` with the holder when a lesson of the project that is not deleted has the slug. */
  insert(p: { lesson: Lesson }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }>;
  /** The lesson (deleted ones too), or null. */
  find(p: { workspaceId: string; id: string }): Promise<Lesson | null>;
  /** The project's lesson with that slug that is not deleted, or null. */
  findBySlug(p: { workspaceId: string; projectId: string; slug: string }): Promise<Lesson | null>;
  /** Replaces a lesson whose stored version is `expectedVersion` (compare-and-set). */
  replace(p: { lesson: Lesson; expectedVersion: number }): Promise<ReplaceResult>;
  /**
   * Lessons of a project that are not deleted, filtered (`q`: full-text over title, body, why
   * and tags), by `sort` descending (nulls last) then id; `offset` pages, at most `limit + 1`.
   */
  list(p: { workspaceId: string; projectId: string; filters: LessonFilters; sort: LessonSort; offset: number; limit: number }): Promise<Lesson[]>;
  /** Appends an observation. */
  addObservation(p: { observation: LessonObservation }): Promise<void>;
  /** A lesson's newest `limit` observations, newest first. */
  observations(p: { workspaceId: string; lessonId: string; limit: number }): Promise<LessonObservation[]>;
  /** Distinct build sessions among a lesson's stored observations and the sessions `plus` names. */
  distinctSessions(p: { workspaceId: string; lessonId: string; plus: readonly string[] }): Promise<number>;
  /** Lessons of a project that are not deleted, by status. */
  countByStatus(p: { workspaceId: string; projectId: string }): Promise<Record<LessonStatus, number>>;
}

/** Lesson candidates. At most one pending candidate of a project has a given fingerprint. */
export interface LessonCandidateStore {
  /** Inserts a candidate; `fingerprint_taken` with the holder when a pending candidate of the project has its fingerprint. */
  insert(p: { candidate: LessonCandidate }): Promise<{ kind: "created" } | { kind: "fingerprint_taken"; existingId: string }>;
  /** The candidate, or null. */
  find(p: { workspaceId: string; id: string }): Promise<LessonCandidate | null>;
  /** Replaces a candidate whose stored version is `expectedVersion` (compare-and-set). */
  replace(p: { candidate: LessonCandidate; expectedVersion: number }): Promise<ReplaceResult>;
  /** Candidates of a project, filtered, by score descending then id; `offset` pages, at most `limit + 1`. */
  list(p: { workspaceId: string; projectId: string; filters: CandidateFilters; offset: number; limit: number }): Promise<LessonCandidate[]>;
  /** Every candidate of a project in one of `statuses` (at most `limit`), oldest first. */
  all(p: { workspaceId: string; projectId: string; statuses: readonly CandidateStatus[]; limit: number }): Promise<LessonCandidate[]>;
  /** Every evidence key `detector|kind|ref_id` of the project's candidates, whatever their status. */
  evidenceKeys(p: { workspaceId: string; projectId: string }): Promise<string[]>;
  /** Candidates of a project by status and, among pending ones, by detector. */
  counts(p: { workspaceId: string; projectId: string }): Promise<{ byStatus: Record<CandidateStatus, number>; byDetector: Record<Detector, number> }>;
}

/** Rules. Immutable but for enrichment and archiving: every write is a compare-and-set on version. */
export interface RuleStore {
  /** Inserts a rule; `slug_taken` with the holder when an active rule of the project has the slug. */
  insert(p: { rule: Rule }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }>;
  /** The rule, or null. */
  find(p: { workspaceId: string; id: string }): Promise<Rule | null>;
  /** The project's active rule with that slug, else its newest archived one, or null. */
  findBySlug(p: { workspaceId: string; projectId: string; slug: string }): Promise<Rule | null>;
  /** Replaces a rule whose stored version is `expectedVersion` and whose stored status is active (archived is terminal). */
  replace(p: { rule: Rule; expectedVersion: number }): Promise<ReplaceResult>;
  /** Rules of a project, filtered, by slug then id; `offset` pages, at most `limit + 1`; `limit` null: all. */
  list(p: { workspaceId: string; projectId: string; filters: RuleFilters; offset: number; limit: number | null }): Promise<Rule[]>;
  /** Every active rule of a project, by slug. */
  active(p: { workspaceId: string; projectId: string }): Promise<Rule[]>;
  /** Active rules derived from the lesson. */
  countActiveForLesson(p: { workspaceId: string; lessonId: string }): Promise<number>;
}

/** The input an enricher reads: the rule, its lesson, and the project's other active rules. */
export interface EnrichmentInput {
  rule: Rule;
  lesson: Lesson | null;
  others: readonly Rule[];
}

/**
 * Computes a rule's enrichment (keywords, suggested triggers, related rules, duplicates,
 * conflicts, token estimate). Deterministic for a given input; `name` goes into the result.
 * The heuristic one needs no model; the port leaves room for one.
 */
export interface Enricher {
  readonly name: string;
  enrich(input: EnrichmentInput, now: Date): Enrichment;
}

// ---------------------------------------------------------------------------------------------
// Session-state records, part 2 (SESSION-STATE §9-10): usage, markdown imports
// ---------------------------------------------------------------------------------------------

/** Usage reports (only ever inserted). */
export interface UsageStore {
  /** Inserts a report. */
  insert(p: { report: UsageReport }): Promise<void>;
  /** The newest report of each model of a session. */
  latest(p: { workspaceId: string; buildSessionId: string }): Promise<UsageReport[]>;
  /** The differences of reports with `since <= reportedAt <= until`, summed per (session, model, UTC day), with the session's times; filtered by project, account and session when given. */
  byDay(p: { workspaceId: string; projectId: string | null; aiAccountId: string | null; buildSessionId: string | null; since: Date; until: Date }): Promise<UsageDayRow[]>;
  /** The sum of every report's difference of the given sessions (their usage so far). */
  totalsForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<UsageFigures>;
}

/** Markdown imports, their rows, and the fingerprints of what imports created (unique per project and target). */
export interface ImportStore {
  /** Inserts an import with its rows. */
  insert(p: { record: ImportRecord; rows: readonly ImportRow[] }): Promise<void>;
  /** The import, or null. */
  find(p: { workspaceId: string; id: string }): Promise<ImportRecord | null>;
  /** Replaces an import whose stored version is `expectedVersion` (compare-and-set). */
  replace(p: { record: ImportRecord; expectedVersion: number }): Promise<ReplaceResult>;
  /** Imports of a project, newest first, filtered; `offset` pages, at most `limit + 1`. */
  list(p: { workspaceId: string; projectId: string; status: string | null; parser: string | null; offset: number; limit: number }): Promise<ImportRecord[]>;
  /** An import's rows by row number, optionally of one status; `limit` null: all from `offset`. */
  rows(p: { workspaceId: string; importId: string; status: string | null; offset: number; limit: number | null }): Promise<ImportRow[]>;
  /** Replaces rows of an import (their status, errors and record ids). */
  updateRows(p: { rows: readonly ImportRow[] }): Promise<void>;
  /** Which of `fingerprints` a project's imports of `target` created already, with the record each created. */
  fingerprints(p: { workspaceId: string; projectId: string; target: string; fingerprints: readonly string[] }): Promise<Map<string, string>>;
  /** Keeps a fingerprint; `taken` (with its record) when the project's target has it already. */
  addFingerprint(p: { workspaceId: string; projectId: string; target: string; fingerprint: string; recordId: string; importId: string; at: Date }): Promise<{ kind: "added" } | { kind: "taken"; recordId: string }>;
}
