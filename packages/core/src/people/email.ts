import { malformed } from "../errors.ts";

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** An email as stored and compared: trimmed and lower-cased. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The normalized email.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field `field`) when it is not an address.
 */
export function parseEmail(email: string, field = "email"): string {
  const normalized = normalizeEmail(email);
  if (!EMAIL.test(normalized)) throw malformed("The email address is not valid.", { field });
  return normalized;
}
