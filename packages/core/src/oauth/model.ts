import { DAY_MS, HOUR_MS, MINUTE_MS } from "../time/duration.ts";

/**
 * The OAuth 2.0 authorization server for MCP clients (DESIGN §2b): clients registered by RFC
 * 7591, single-use authorization codes, grants (one per approval), and the grant's refresh
 * tokens, one generation per rotation. Access tokens are ordinary operational credentials,
 * linked to their grant.
 */

/** How long an authorization code may be exchanged (DESIGN §2b: 10 minutes). */
export const AUTHORIZATION_CODE_LIFETIME_MS = 10 * MINUTE_MS;
/** The lifetime of an access token (an operational credential): one hour (DESIGN §2b). */
export const ACCESS_TOKEN_LIFETIME_MS = HOUR_MS;
/** The lifetime of each refresh token, counted from its issue (each rotation starts a new one). */
export const REFRESH_TOKEN_LIFETIME_MS = 30 * DAY_MS;
/** A registered client never used (no code issued, no token) expires this long after registration. */
export const UNUSED_CLIENT_LIFETIME_MS = DAY_MS;
/** A client idle this long after its last use expires (its refresh tokens have all run out by then). */
export const IDLE_CLIENT_LIFETIME_MS = REFRESH_TOKEN_LIFETIME_MS;

/** The recognisable prefix of refresh tokens (secret scanners, DESIGN §2b). */
export const REFRESH_TOKEN_PREFIX = "agq_rt_";
/** The recognisable prefix of authorization codes. */
export const AUTHORIZATION_CODE_PREFIX = "agq_ac_";

/** A client registered by RFC 7591 dynamic client registration: always public (auth method none). */
export interface OAuthClient {
  /** The client_id (a ULID). */
  id: string;
  /** client_name as the client asserted it (never verified), or null. */
  name: string | null;
  /** The redirect URIs kept at registration (the refused ones are not stored). */
  redirectUris: string[];
  /** The registered metadata as the 201 returned it (client_name, grant_types, ...), without client_id. */
  metadata: Record<string, unknown>;
  createdAt: Date;
  /** The last authorization or token request of this client, or null when never used. */
  lastUsedAt: Date | null;
}

/** An authorization code: approval by a person, waiting to be exchanged once. Only its keyed hash is stored. */
export interface AuthorizationCode {
  id: string;
  workspaceId: string;
  clientId: string;
  /** HMAC-SHA-256 of the code under the server pepper, hex. */
  codeHash: string;
  /** The person who approved, or null (approved by the core in tests, or by an operator). */
  personId: string | null;
  /** The AI account the grant acts as. */
  aiAccountId: string;
  scopes: string[];
  /** The redirect URI of the authorization request, exactly as sent (the token request must repeat it). */
  redirectUri: string;
  /** The PKCE S256 code challenge (base64url of SHA-256 of the verifier). */
  codeChallenge: string;
  /** The resource (RFC 8707) of the request, when one was sent. */
  resource: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** When it was exchanged (or its exchange was attempted): set once, by a guarded write. */
  consumedAt: Date | null;
  /** The grant its exchange created, or null (not exchanged, or its exchange failed a check). */
  grantId: string | null;
}

/** Why a grant ended (recorded on the grant, shown under Connections, named in the audit row). */
export const GRANT_REVOCATION_CAUSES = ["disconnected", "refresh_token_replayed", "authorization_code_replayed", "revoked_by_client", "ai_account_revoked"] as const;
/** Why a grant ended. */
export type GrantRevocationCause = (typeof GRANT_REVOCATION_CAUSES)[number];

/** A grant: one approval of a client, acting as one AI account with fixed scopes; a Connection. */
export interface OAuthGrant {
  id: string;
  workspaceId: string;
  clientId: string;
  /** The client's self-asserted name at approval (kept when the client registration expires). */
  clientName: string | null;
  /** The redirect URI the approval went to. */
  redirectUri: string;
  aiAccountId: string;
  /** The person who approved, or null. */
  personId: string | null;
  scopes: string[];
  createdAt: Date;
  /** The last use: a token issued under the grant (code exchange or refresh), or an access token of it authenticating a request (at most a minute old). */
  lastUsedAt: Date;
  /** When the grant's newest refresh token runs out (the grant is then expired). */
  refreshExpiresAt: Date;
  revokedAt: Date | null;
  revokedReason: GrantRevocationCause | null;
}

/** The state of a grant as Connections shows it. */
export type GrantState = "active" | "expired" | "revoked";

/**
 * One generation of a grant's refresh token. Only the current token (unspent) and the most
 * recently spent one are kept: spending generation n forgets every generation before n.
 */
export interface RefreshTokenRecord {
  id: string;
  workspaceId: string;
  grantId: string;
  clientId: string;
  /** 1 for the token of the code exchange, + 1 per rotation. */
  generation: number;
  /** HMAC-SHA-256 of the token under the server pepper, hex. */
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  /** When it was exchanged for its successor, or null (the current token). */
  spentAt: Date | null;
  /** When its grant was revoked, or null. */
  revokedAt: Date | null;
}

/** The state of a grant at `now`. */
export function grantState(grant: Pick<OAuthGrant, "revokedAt" | "refreshExpiresAt">, now: Date): GrantState {
  if (grant.revokedAt !== null) return "revoked";
  return grant.refreshExpiresAt.getTime() <= now.getTime() ? "expired" : "active";
}
