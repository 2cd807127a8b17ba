import { Secret, TOTP } from "otpauth";
import { randomBytes } from "@noble/hashes/utils.js";
import { hashToken } from "../access/token.ts";

/** TOTP as every authenticator app expects it: SHA-1, 6 digits, 30-second steps (RFC 6238). */
export const TOTP_SETTINGS = { algorithm: "SHA1", digits: 6, period: 30 } as const;
/** Steps either side of now a code may come from (clock drift). */
export const TOTP_WINDOW = 1;
/** Recovery codes made when MFA is confirmed. */
export const RECOVERY_CODE_COUNT = 10;

const ISSUER = "agentq";

/** A new TOTP secret: 160 random bits, base32 (what authenticator apps take). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The otpauth:// URI of a secret (QR code content), labelled with the person's email. */
export function otpauthUri(secretBase32: string, email: string): string {
  return new TOTP({ issuer: ISSUER, label: email, ...TOTP_SETTINGS, secret: Secret.fromBase32(secretBase32) }).toString();
}

/**
 * The time step (counter) a 6-digit code is valid for at `now`, one step either side, or null
 * when it matches none. The caller accepts a step once (`PersonStore.useTotpStep`).
 */
export function totpStepOf(secretBase32: string, code: string, now: Date): number | null {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const totp = new TOTP({ issuer: ISSUER, ...TOTP_SETTINGS, secret: Secret.fromBase32(secretBase32) });
  const timestamp = now.getTime();
  const delta = totp.validate({ token: code, timestamp, window: TOTP_WINDOW });
  return delta === null ? null : totp.counter({ timestamp }) + delta;
}

const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

/** One character of the recovery alphabet per random byte below the largest multiple of its size (no modulo bias). */
function randomCodeChars(count: number): string {
  const limit = 256 - (256 % RECOVERY_ALPHABET.length);
  let out = "";
  while (out.length < count) {
    for (const b of randomBytes(count * 2)) {
      if (b < limit && out.length < count) out += RECOVERY_ALPHABET[b % RECOVERY_ALPHABET.length];
    }
  }
  return out;
}

/** Ten new recovery codes, `xxxxx-xxxxx` (10 characters of a 31-letter alphabet: about 49 bits each), shown once. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = randomCodeChars(10);
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** A recovery code as typed, normalized: lower case, without spaces or dashes. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

/** The keyed hash a recovery code is stored under. */
export function hashRecoveryCode(pepper: Uint8Array, code: string): string {
  return hashToken(pepper, `recovery-code:${normalizeRecoveryCode(code)}`);
}

