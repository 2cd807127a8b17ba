import type { Person, PersonSession, Role, Workspace } from "../access/model.ts";
import type { LinkedIdentity, OidcAttempt, OidcIdentity } from "../oidc/oidc-identity.ts";
import type { PendingSignUp } from "../people/pending-sign-up.ts";
import type { PersonToken, PersonTokenPurpose } from "../people/person-tokens.ts";

// The people seam (DESIGN §2b): people, their sessions and second factors, sign-in throttling,
// password hashing and secret sealing, single-use tokens, pending sign-ups, linked identities,
// the people of a workspace, closing, and the OIDC identity provider. Every port's general rules:
// src/ports.ts.

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
  /** Turns MFA off: no secret, nothing pending, no recovery codes, mfaEnabledAt null. False when it was off. */
  disableTotp(p: { workspaceId: string; personId: string }): Promise<boolean>;
  /** Replaces the recovery codes of a person with MFA on by `recoveryCodeHashes`. False when MFA is off. */
  replaceRecoveryCodes(p: { workspaceId: string; personId: string; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean>;
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
