import { DomainError } from "@agentq/core";
import postgres from "postgres";

/**
 * The one place PostgreSQL and driver errors become the core's outcomes (STYLE §Errors):
 * unique violations of known constraints become store results (`name_taken`, `email_taken`,
 * ...), every error that means "the database cannot serve us right now" becomes
 * DomainError SVC_SERVICE_UNAVAILABLE, and a data exception (a value PostgreSQL cannot take,
 * SQLSTATE class 22) becomes SVC_MALFORMED_REQUEST (DESIGN §2c: the request's fault, never a
 * retryable 503). Anything else is rethrown unchanged (a bug).
 */

/** Store results named by the unique constraint whose violation produces them. */
const UNIQUE_CONSTRAINT_OUTCOMES = {
  ai_accounts_friendly_name_key: "name_taken",
  persons_email_key: "email_taken",
  credentials_token_hash_key: "token_taken",
  idempotency_keys_pkey: "idempotency_exists",
} as const;

/** A store outcome that a unique violation stands for. */
export type UniqueViolationOutcome = (typeof UNIQUE_CONSTRAINT_OUTCOMES)[keyof typeof UNIQUE_CONSTRAINT_OUTCOMES];

// SQLSTATE classes and codes meaning the server cannot serve the request now (retryable):
// 08 connection exception, 53 insufficient resources, 57P01-57P03 shutdown / cannot connect now,
// 40001 serialization failure, 40P01 deadlock detected, 55P03 lock not available.
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "40001", "40P01", "55P03"]);
const UNAVAILABLE_SQLSTATE_CLASSES = ["08", "53"];
// postgres.js connection error codes (and Node socket errors it passes through).
const UNAVAILABLE_DRIVER_CODES = new Set([
  "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN",
]);

/** The outcome a unique violation in `e` stands for, or null when `e` is not one of ours. */
export function uniqueViolationOutcome(e: unknown): UniqueViolationOutcome | null {
  if (!(e instanceof postgres.PostgresError) || e.code !== "23505") return null;
  const name = e.constraint_name as keyof typeof UNIQUE_CONSTRAINT_OUTCOMES | undefined;
  return name !== undefined && name in UNIQUE_CONSTRAINT_OUTCOMES ? UNIQUE_CONSTRAINT_OUTCOMES[name] : null;
}

// SQLSTATE class 22, data exception: U+0000 in text (22021 character_not_in_repertoire, 22P05
// untranslatable_character in jsonb), invalid text representation (22P02), a number out of range
// (22003), an invalid datetime (22007, 22008)... the value came from the request.
const DATA_EXCEPTION_CLASS = "22";

/** True when `e` is a PostgreSQL data exception (SQLSTATE class 22): a value the database refused. */
export function isDataException(e: unknown): boolean {
  return e instanceof postgres.PostgresError && e.code.startsWith(DATA_EXCEPTION_CLASS);
}

/** True when `e` means the database could not serve the request (connection lost, shutting down, overloaded, lock conflict). */
export function isUnavailable(e: unknown): boolean {
  if (e instanceof postgres.PostgresError) return UNAVAILABLE_SQLSTATES.has(e.code) || UNAVAILABLE_SQLSTATE_CLASSES.some((c) => e.code.startsWith(c));
  const code = typeof e === "object" && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" && UNAVAILABLE_DRIVER_CODES.has(code);
}

/**
 * Translates `e`: a DomainError SVC_SERVICE_UNAVAILABLE for an unavailable database,
 * SVC_MALFORMED_REQUEST (details.reason "unstorable_value", the SQLSTATE kept as the cause only)
 * for a data exception, else `e` itself.
 */
export function translatePgError(e: unknown): unknown {
  if (e instanceof DomainError) return e;
  if (isUnavailable(e)) return new DomainError("SVC_SERVICE_UNAVAILABLE", "The database is unavailable; retry with backoff.", undefined, { cause: e });
  if (isDataException(e)) return new DomainError("SVC_MALFORMED_REQUEST", "A value of the request cannot be stored or compared.", { reason: "unstorable_value" }, { cause: e });
  return e;
}

/** Runs `fn`, rethrowing its failure through `translatePgError`. */
export async function withPgErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw translatePgError(e);
  }
}
