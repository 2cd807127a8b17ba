import { malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";

/**
 * The message id of a path: a ULID, or the message cannot exist.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND when it is not a well-formed ULID.
 */
export function parseMessageId(value: unknown): string {
  if (!isUlid(value)) throw notFound("Message");
  return value;
}

/**
 * The lease id a consumer sends back.
 * @throws DomainError SVC_MALFORMED_REQUEST (field lease_id) when missing, empty or too long.
 */
export function parseLeaseId(value: unknown): string {
  if (typeof value !== "string" || value.length === 0 || value.length > MESSAGING_LIMITS.leaseIdMaxLength) {
    throw malformed("lease_id must be the lease id the message arrived with.", { field: "lease_id" });
  }
  return value;
}

/**
 * An optional free text of at most `max` characters; absent or null gives null.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field` when it is not a string or too long.
 */
export function parseOptionalText(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw malformed(`${field} must be a string.`, { field });
  if (value.length > max) throw malformed(`${field} must be at most ${max} characters.`, { field, max_length: max });
  return value;
}

/**
 * An optional integer in [min, max] (default when absent).
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field` otherwise.
 */
export function parseBoundedInteger(value: unknown, field: string, bounds: { min: number; max: number; default: number }): number {
  if (value === undefined || value === null) return bounds.default;
  if (typeof value !== "number" || !Number.isInteger(value) || value < bounds.min || value > bounds.max) {
    throw malformed(`${field} must be an integer from ${bounds.min} to ${bounds.max}.`, { field, min: bounds.min, max: bounds.max });
  }
  return value;
}
