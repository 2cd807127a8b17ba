/**
 * The error catalogue: every SVC_ code the service can return, with its HTTP status and whether
 * a client may retry the same call. This is the single source for REST statuses, MCP tool
 * errors, CLI exit codes and the dispatcher's retry decisions (STYLE §Errors).
 */
export const ERROR_CATALOGUE = {
  SVC_UNAUTHENTICATED: { status: 401, retryable: false, summary: "Credential missing, malformed, unknown or revoked." },
  SVC_SCOPE_INSUFFICIENT: { status: 403, retryable: false, summary: "The credential lacks the scope the operation needs." },
  SVC_TIER_INSUFFICIENT: { status: 403, retryable: false, summary: "The credential's tier is too low for the operation." },
  SVC_SCOPE_NOT_ISSUABLE: { status: 403, retryable: false, summary: "The credential carries a scope the API no longer mints." },
  SVC_STEP_UP_REQUIRED: { status: 401, retryable: false, summary: "The operation needs a fresh MFA step-up." },
  SVC_FROZEN: { status: 403, retryable: false, summary: "The calling AI account or its workspace is frozen." },
  SVC_WORKSPACE_CLOSED: { status: 403, retryable: false, summary: "The workspace is closed." },
  SVC_PLAN_LIMIT_EXCEEDED: { status: 403, retryable: false, summary: "A hard plan cap was hit." },
  SVC_GEOFENCE_BLOCKED: { status: 403, retryable: false, summary: "Sign-up from a country that is not served." },
  SVC_MALFORMED_REQUEST: { status: 400, retryable: false, summary: "The request is malformed or a value is outside the accepted set." },
  SVC_UNSUPPORTED_CONTENT_TYPE: { status: 415, retryable: false, summary: "The body is not application/json, or its encoding is not supported." },
  SVC_PAYLOAD_TOO_LARGE: { status: 413, retryable: false, summary: "The body is over 256 KB decompressed or 1 MB compressed." },
  SVC_CURSOR_EXPIRED: { status: 400, retryable: false, summary: "The cursor is older than 24 hours, tampered with, or from another query." },
  SVC_RECIPIENT_RESOLUTION_FAILED: { status: 404, retryable: false, summary: "The recipient could not be resolved." },
  SVC_RESOURCE_NOT_FOUND: { status: 404, retryable: false, summary: "The named resource does not exist." },
  SVC_RESOURCE_CONFLICT: { status: 409, retryable: false, summary: "The resource's state does not permit the action, or a concurrent write won." },
  SVC_LEASE_NOT_HELD: { status: 409, retryable: false, summary: "The lease is not the caller's current lease on the message." },
  SVC_LEASE_EXPIRED: { status: 409, retryable: false, summary: "The lease ran out; the message will be redelivered." },
  SVC_LEASE_AT_TTL_CEILING: { status: 409, retryable: false, summary: "The extension would pass the message's own expiry." },
  SVC_LEASE_AT_CUMULATIVE_CEILING: { status: 409, retryable: false, summary: "The lease is at its one-hour cumulative cap." },
  SVC_LEASE_EXTENSION_LIMIT_EXCEEDED: { status: 409, retryable: false, summary: "The lease was already extended 30 times." },
  SVC_EXTEND_RATE_LIMITED: { status: 429, retryable: true, summary: "At most one extend_lease per 10 seconds per message." },
  SVC_NACK_RATE_LIMITED: { status: 429, retryable: true, summary: "At most one nack per 30 seconds per message." },
  SVC_DEAD_LETTERED: { status: 409, retryable: false, summary: "The message has been dead-lettered." },
  SVC_EXPIRED: { status: 410, retryable: false, summary: "The message expired." },
  SVC_IDEMPOTENCY_KEY_REQUIRED: { status: 400, retryable: false, summary: "The operation requires an Idempotency-Key header." },
  SVC_IDEMPOTENCY_CONFLICT: { status: 409, retryable: false, summary: "The Idempotency-Key was used with a different request." },
  SVC_POLICY_NOT_ACKNOWLEDGED: { status: 409, retryable: false, summary: "A required workspace policy is not acknowledged." },
  SVC_POLICY_VERSION_STALE: { status: 409, retryable: false, summary: "The acknowledged policy version is no longer current." },
  SVC_RATE_LIMITED: { status: 429, retryable: true, summary: "A per-minute rate-limit bucket is empty." },
  SVC_SANCTIONS_BLOCKED: { status: 403, retryable: false, summary: "A participant in the send is sanctions-blocked." },
  SVC_SANCTIONS_REVIEW_PENDING: { status: 403, retryable: false, summary: "A participant is held pending sanctions review." },
  SVC_SERVICE_UNAVAILABLE: { status: 503, retryable: true, summary: "The service could not serve the request; retry with backoff." },
  // Added by agentq (DESIGN §2): routing failures, in the same envelope.
  SVC_ROUTE_NOT_FOUND: { status: 404, retryable: false, summary: "No route matches the path." },
  SVC_METHOD_NOT_ALLOWED: { status: 405, retryable: false, summary: "The route exists but not for this method." },
  // Added by agentq (DESIGN §2b, notices): a message withheld after a DSA or DMCA notice (RFC 7725).
  SVC_LEGALLY_WITHHELD: { status: 451, retryable: false, summary: "The message is withheld after a legal notice." },
  // Added by agentq (DESIGN §2b): a cookie-authenticated write from another origin.
  SVC_CSRF_REJECTED: { status: 403, retryable: false, summary: "The request did not come from the service's own origin: a write authenticated by the session cookie, or a request to /mcp with a foreign Origin." },
} as const satisfies Record<string, { status: number; retryable: boolean; summary: string }>;

/**
 * The OAuth 2.0 endpoints' error codes (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2, RFC 6749
 * §4.1.2.1): /oauth/register, /oauth/token and /oauth/revoke answer `{ "error", "error_description" }`
 * as OAuth clients expect, not the SVC_ envelope, and the authorization endpoint redirects with
 * `error=`. The second half of this one catalogue.
 */
export const OAUTH_ERROR_CATALOGUE = {
  invalid_request: { status: 400, summary: "A parameter is missing, repeated, malformed or unsupported." },
  invalid_client: { status: 401, summary: "The client_id is unknown (never registered, or expired): register again." },
  invalid_grant: { status: 400, summary: "The code or refresh token is unknown, spent, expired, revoked, of another client, or its PKCE verifier or redirect_uri does not match." },
  unauthorized_client: { status: 400, summary: "The client did not register for this grant type." },
  unsupported_grant_type: { status: 400, summary: "Only authorization_code and refresh_token are supported." },
  unsupported_response_type: { status: 400, summary: "Only response_type=code is supported." },
  invalid_scope: { status: 400, summary: "The requested scope is wider than the grant's." },
  invalid_target: { status: 400, summary: "The resource is not this server's MCP endpoint." },
  invalid_redirect_uri: { status: 400, summary: "No redirect URI of the registration is acceptable." },
  invalid_client_metadata: { status: 400, summary: "The registration metadata is malformed or asks for what is not supported." },
  access_denied: { status: 400, summary: "The person denied the authorization request." },
  temporarily_unavailable: { status: 503, summary: "The service could not serve the request; retry with backoff." },
} as const satisfies Record<string, { status: number; summary: string }>;

/** An OAuth 2.0 error code. */
export type OAuthErrorCode = keyof typeof OAUTH_ERROR_CATALOGUE;

/** A refusal of an OAuth endpoint, rendered as `{ error, error_description }` with the catalogue's status. */
export class OAuthError extends Error {
  readonly code: OAuthErrorCode;

  constructor(code: OAuthErrorCode, description: string) {
    super(description);
    this.name = "OAuthError";
    this.code = code;
  }

  /** The HTTP status of this error's code. */
  get status(): number {
    return OAUTH_ERROR_CATALOGUE[this.code].status;
  }
}

/** True when `e` is an OAuthError. */
export function isOAuthError(e: unknown): e is OAuthError {
  return e instanceof OAuthError || (typeof e === "object" && e !== null && (e as { name?: unknown }).name === "OAuthError" && typeof (e as { code?: unknown }).code === "string" && (e as { code: string }).code in OAUTH_ERROR_CATALOGUE);
}

/** Every SVC_ error code. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** All codes, in catalogue order. */
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** Structured specifics of an error (the envelope's `details`). */
export type ErrorDetails = Record<string, unknown>;

/**
 * The one exception type of the domain. Carries a catalogue code, a human message (clients
 * must never branch on it) and optional structured details. `retryAfterSeconds`, when set,
 * becomes the Retry-After header at the HTTP edge.
 */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options?: { retryAfterSeconds?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DomainError";
    this.code = code;
    this.details = details;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** The HTTP status of this error's code. */
  get status(): number {
    return ERROR_CATALOGUE[this.code].status;
  }

  /** Whether the same call may succeed if retried with backoff. */
  get retryable(): boolean {
    return ERROR_CATALOGUE[this.code].retryable;
  }
}

/** True when `e` is a DomainError (also across module copies). */
export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError || (typeof e === "object" && e !== null && (e as { name?: unknown }).name === "DomainError" && typeof (e as { code?: unknown }).code === "string" && (e as { code: string }).code in ERROR_CATALOGUE);
}

/** The wire form of an error: `{ error: { code, message, details? }, request_id }`. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
  request_id: string;
}

/** Builds the error envelope for `e`; an unknown error never leaks its message. */
export function toErrorEnvelope(e: unknown, requestId: string): ErrorEnvelope {
  if (isDomainError(e)) {
    return { error: { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) }, request_id: requestId };
  }
  return { error: { code: "SVC_SERVICE_UNAVAILABLE", message: "The service could not serve the request." }, request_id: requestId };
}

/** Shorthand for the commonest refusal: a malformed request naming the offending field. */
export function malformed(message: string, details?: ErrorDetails): DomainError {
  return new DomainError("SVC_MALFORMED_REQUEST", message, details);
}

/** Shorthand for a missing resource. */
export function notFound(resource: string): DomainError {
  return new DomainError("SVC_RESOURCE_NOT_FOUND", `${resource} not found.`, { resource });
}
