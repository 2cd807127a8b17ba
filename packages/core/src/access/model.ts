/** Credential tiers. */
export const TIERS = ["operational", "administrative"] as const;
/** A credential tier. */
export type Tier = (typeof TIERS)[number];

/** Scopes an operational credential may be issued with. */
export const OPERATIONAL_SCOPES = [
  "send", "validate", "get_pending", "ack", "nack", "list_recipients", "list_templates", "get_template",
  "get_policies", "acknowledge_policies", "manage_projects", "write_session_state", "view_audit_log",
] as const;
/** Scopes an administrative credential may be issued with. */
export const ADMINISTRATIVE_SCOPES = ["manage_ai_accounts", "manage_credentials", "manage_webhooks", "approve_messages"] as const;
/** Retired scopes: valid on credentials that carry them, never issued again, gating nothing. */
export const RETIRED_SCOPES = ["manage_policies", "manage_dsr", "manage_dlq"] as const;

/** A scope name that gates something. */
export type Scope = (typeof OPERATIONAL_SCOPES)[number] | (typeof ADMINISTRATIVE_SCOPES)[number];
/** Any scope name a credential may carry, retired ones included. */
export type AnyScope = Scope | (typeof RETIRED_SCOPES)[number];

/** Workspace states. */
export type WorkspaceState = "active" | "frozen" | "closed";

/** A workspace: the tenant. */
export interface Workspace {
  id: string;
  name: string;
  state: WorkspaceState;
  /** Claims after which a message is dead-lettered instead of delivered again. */
  maxDeliveries: number;
  createdAt: Date;
  /** When the workspace was closed (DELETE /v1/workspaces/me); absent or null while it is not. */
  closedAt?: Date | null;
}

/** Roles of a person in their workspace (DESIGN §2b). */
export const ROLES = ["owner", "admin", "viewer"] as const;
/** A person's role: owner and admin administer the workspace, a viewer reads only. */
export type Role = (typeof ROLES)[number];

/** A person who owns, administers or views a workspace (signs in to the dashboard). */
export interface Person {
  id: string;
  workspaceId: string;
  /** Lower-cased and trimmed; unique across all workspaces. */
  email: string;
  displayName: string | null;
  role: Role;
  /** A password hash (argon2id PHC string), or null when the person has no password. */
  passwordHash: string | null;
  /** When TOTP was confirmed (MFA on), else null. */
  mfaEnabledAt: Date | null;
  createdAt: Date;
}

/** AI account states. */
export type AiAccountState = "active" | "frozen" | "revoked";

/** An AI account: the addressable identity that credentials belong to. */
export interface AiAccount {
  id: string;
  workspaceId: string;
  friendlyName: string;
  state: AiAccountState;
  createdAt: Date;
  updatedAt: Date;
  /**
   * When one of its credentials last authenticated a request (REST, MCP or the CLI), or null when
   * none has: kept at most a minute old by a throttled write (`CredentialStore.recordUse`).
   */
  lastActiveAt: Date | null;
}

/** Credential states. */
export type CredentialState = "active" | "revoked";

/** A credential: a bearer token's stored record. Only the keyed hash of the token is kept. */
export interface Credential {
  id: string;
  workspaceId: string;
  aiAccountId: string;
  tier: Tier;
  scopes: string[];
  name: string;
  state: CredentialState;
  /** HMAC-SHA-256 of the token under the server pepper, hex. */
  tokenHash: string;
  /** After this instant the credential no longer authenticates (tier lifetime or rotation overlap end). */
  expiresAt: Date | null;
  projectId: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** The credential this one was rotated from. */
  rotatedFromId: string | null;
  /** Set when this credential was rotated: its successor. */
  rotatedToId: string | null;
  /** When it last authenticated a request, or null when never: at most a minute old (a throttled write). */
  lastUsedAt: Date | null;
}

/** Friendly names of AI accounts (DESIGN §2). */
export const FRIENDLY_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;

/**
 * A caller authenticated by a bearer credential: the credential, its AI account and workspace as
 * read for this request. `kind` is absent or "credential".
 */
export interface CredentialPrincipal {
  kind?: "credential";
  workspace: Workspace;
  account: AiAccount;
  credential: Credential;
  /**
   * Set when the account and workspace came from the authenticator's short-lived cache instead
   * of a fresh read (`authenticate(..., { deferCallerCheck: true })`): the operation must check
   * them itself, either as a guard of its write (operations marked `guardsCaller`) or by
   * `verifyCaller` before anything else (the executor does that for every other operation).
   */
  callerCheckDeferred?: true;
}

/** What a person's session is at: signed in, or waiting for the second factor (password checked). */
export type SessionStage = "active" | "pending_mfa";

/** A person's browser session. Only the keyed hash of its value is stored (`tokenHash`). */
export interface PersonSession {
  id: string;
  workspaceId: string;
  personId: string;
  stage: SessionStage;
  /** HMAC-SHA-256 of the session value under the server pepper, hex. */
  tokenHash: string;
  /** True when the session was created by a sign-in that passed MFA (it survives enabling MFA). */
  createdWithMfa: boolean;
  createdAt: Date;
  /** The last request seen (the idle timeout counts from here). */
  lastSeenAt: Date;
  /** The absolute end of the session. */
  expiresAt: Date;
  /** Until when a fresh MFA step-up holds, or null. */
  stepUpUntil: Date | null;
  /** When the session ended (sign-out, MFA enabled, password reset, removal), or null. */
  endedAt: Date | null;
}

/** A caller authenticated by a person's session cookie (DESIGN §2b). */
export interface PersonPrincipal {
  kind: "person";
  workspace: Workspace;
  person: Person;
  session: PersonSession;
}

/** The authenticated caller of an operation: an AI account's credential, or a person's session. */
export type Principal = CredentialPrincipal | PersonPrincipal;
