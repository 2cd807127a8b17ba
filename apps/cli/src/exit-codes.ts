import { ERROR_CATALOGUE } from "@agentq/core";
import type { ErrorCode } from "@agentq/core";

/** The exit codes of `agentq`, one per error class (documented in apps/cli/README.md). */
export const EXIT = {
  /** Success. */
  ok: 0,
  /** A fault of the CLI itself (a bug); the message says what happened. */
  internal: 1,
  /** Bad usage or a request the service refused as malformed (fix the call, do not retry). */
  usage: 2,
  /** Not allowed: no or invalid credential, missing scope or tier, frozen, closed, plan or sanctions block. */
  auth: 3,
  /** The recipient, message or resource does not exist (or expired, or is withheld after a legal notice). */
  notFound: 4,
  /** The state does not permit it: lease not held or expired, conflict, dead-lettered, policy to acknowledge. */
  conflict: 5,
  /** Retryable: rate limited or service unavailable; retry with backoff. */
  retryable: 6,
  /** The service could not be reached, or did not answer like agentq. */
  network: 7,
  /** `receipt verify`: the file is not a receipt, consistency bundle, checkpoint or chain export, or a checkpoint in it is malformed. */
  verifyMalformed: 10,
  /** `receipt verify`: no trusted key signed a checkpoint, or its signature is bad. */
  verifySignature: 11,
  /** `receipt verify`: a checkpoint of another log (another workspace or server, or not `--origin`). */
  verifyOrigin: 12,
  /** `receipt verify`: a record or chain row that does not match (another message or position; an export's changed, removed or reordered row). */
  verifyRow: 13,
  /** `receipt verify`: an inclusion or consistency proof that does not lead to the checkpoint's root. */
  verifyProof: 14,
} as const;

/** An exit code of `agentq`. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Every SVC_ code's exit code: exhaustive, so a new catalogue code does not compile until it is classed here. */
const EXIT_BY_CODE: Readonly<Record<ErrorCode, ExitCode>> = {
  SVC_UNAUTHENTICATED: EXIT.auth,
  SVC_SCOPE_INSUFFICIENT: EXIT.auth,
  SVC_TIER_INSUFFICIENT: EXIT.auth,
  SVC_SCOPE_NOT_ISSUABLE: EXIT.auth,
  SVC_STEP_UP_REQUIRED: EXIT.auth,
  SVC_FROZEN: EXIT.auth,
  SVC_WORKSPACE_CLOSED: EXIT.auth,
  SVC_PLAN_LIMIT_EXCEEDED: EXIT.auth,
  SVC_GEOFENCE_BLOCKED: EXIT.auth,
  SVC_CSRF_REJECTED: EXIT.auth,
  SVC_SANCTIONS_BLOCKED: EXIT.auth,
  SVC_SANCTIONS_REVIEW_PENDING: EXIT.auth,
  SVC_MALFORMED_REQUEST: EXIT.usage,
  SVC_UNSUPPORTED_CONTENT_TYPE: EXIT.usage,
  SVC_PAYLOAD_TOO_LARGE: EXIT.usage,
  SVC_CURSOR_EXPIRED: EXIT.usage,
  SVC_IDEMPOTENCY_KEY_REQUIRED: EXIT.usage,
  SVC_METHOD_NOT_ALLOWED: EXIT.usage,
  SVC_RECIPIENT_RESOLUTION_FAILED: EXIT.notFound,
  SVC_RESOURCE_NOT_FOUND: EXIT.notFound,
  SVC_EXPIRED: EXIT.notFound,
  SVC_LEGALLY_WITHHELD: EXIT.notFound,
  SVC_ROUTE_NOT_FOUND: EXIT.notFound,
  SVC_RESOURCE_CONFLICT: EXIT.conflict,
  SVC_LEASE_NOT_HELD: EXIT.conflict,
  SVC_LEASE_EXPIRED: EXIT.conflict,
  SVC_LEASE_AT_TTL_CEILING: EXIT.conflict,
  SVC_LEASE_AT_CUMULATIVE_CEILING: EXIT.conflict,
  SVC_LEASE_EXTENSION_LIMIT_EXCEEDED: EXIT.conflict,
  SVC_DEAD_LETTERED: EXIT.conflict,
  SVC_IDEMPOTENCY_CONFLICT: EXIT.conflict,
  SVC_POLICY_NOT_ACKNOWLEDGED: EXIT.conflict,
  SVC_POLICY_VERSION_STALE: EXIT.conflict,
  SVC_EXTEND_RATE_LIMITED: EXIT.retryable,
  SVC_NACK_RATE_LIMITED: EXIT.retryable,
  SVC_RATE_LIMITED: EXIT.retryable,
  SVC_SERVICE_UNAVAILABLE: EXIT.retryable,
};

/** The exit class of an HTTP status, for codes this CLI does not know yet (additive within v1). */
function exitForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404 || status === 410 || status === 451) return EXIT.notFound;
  if (status === 409) return EXIT.conflict;
  if (status === 429 || status >= 500) return EXIT.retryable;
  if (status >= 400 && status < 500) return EXIT.usage;
  return EXIT.internal;
}

/** The exit code of a service error: by its code, else (an unknown, newer code) by its HTTP status. */
export function exitCodeForServiceError(code: string, status: number): ExitCode {
  return code in ERROR_CATALOGUE ? EXIT_BY_CODE[code as ErrorCode] : exitForStatus(status);
}
