import { dictionary } from "@zxcvbn-ts/language-common";
import { malformed } from "../errors.ts";
import { PEOPLE_LIMITS } from "./people-settings.ts";

// The bundled list of common passwords (zxcvbn-ts's, about 49,000 entries), lower-cased. Only
// entries long enough to pass the length rule matter; the rest are dropped to keep the set small.
let common: ReadonlySet<string> | undefined;
function commonPasswords(): ReadonlySet<string> {
  common ??= new Set(dictionary["passwords-common"].filter((p) => p.length >= PEOPLE_LIMITS.passwordMinLength).map((p) => p.toLowerCase()));
  return common;
}

/** Why a password was refused (`details.reason` of the 400). */
export type PasswordRefusal = "too_short" | "too_long" | "common" | "contains_email";

/**
 * The password rules (DESIGN §2b): 12 to 256 characters (code points), no composition rules,
 * refused when on the bundled list of common passwords (case-insensitive) or containing the
 * email's local part (case-insensitive, when the local part has at least 3 characters).
 * Returns null when acceptable.
 */
export function passwordRefusal(password: string, email: string): PasswordRefusal | null {
  const length = [...password].length;
  if (length < PEOPLE_LIMITS.passwordMinLength) return "too_short";
  if (length > PEOPLE_LIMITS.passwordMaxLength) return "too_long";
  const lower = password.toLowerCase();
  if (commonPasswords().has(lower)) return "common";
  const local = email.trim().toLowerCase().split("@")[0] ?? "";
  if (local.length >= 3 && lower.includes(local)) return "contains_email";
  return null;
}

const MESSAGES: Readonly<Record<PasswordRefusal, string>> = {
  too_short: `The password must be at least ${PEOPLE_LIMITS.passwordMinLength} characters.`,
  too_long: `The password must be at most ${PEOPLE_LIMITS.passwordMaxLength} characters.`,
  common: "The password is on the list of common passwords; choose another.",
  contains_email: "The password must not contain the email address's local part.",
};

/**
 * Checks a new password against the rules.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field `field`, details.reason).
 */
export function checkPassword(password: string, email: string, field = "password"): void {
  const refusal = passwordRefusal(password, email);
  if (refusal !== null) throw malformed(MESSAGES[refusal], { field, reason: refusal });
}
