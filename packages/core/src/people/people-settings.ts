import { MINUTE_MS, HOUR_MS } from "../time/duration.ts";
import type { PasswordHasher, SecretSealer } from "../ports.ts";

/** Session lifetimes and sign-in limits (DESIGN §2b). */
export const PEOPLE_LIMITS = {
  /** A session ends after this long without a request. */
  sessionIdleMs: 30 * MINUTE_MS,
  /** A session ends this long after sign-in, whatever its use. */
  sessionAbsoluteMs: 12 * HOUR_MS,
  /** A password-checked sign-in waiting for its second factor lasts this long. */
  pendingMfaMs: 10 * MINUTE_MS,
  /** A step-up (and a sign-in completed with MFA) holds this long. */
  stepUpMs: 5 * MINUTE_MS,
  /** The window failed sign-ins are counted in. */
  throttleWindowMs: 15 * MINUTE_MS,
  /** Failed sign-ins per email in the window before 429. */
  failuresPerEmail: 10,
  /** Failed sign-ins per client address in the window before 429. */
  failuresPerAddress: 30,
  /** A session's lastSeenAt is written at most this often (the idle timeout is that coarse). */
  touchEveryMs: MINUTE_MS,
  passwordMinLength: 12,
  passwordMaxLength: 256,
} as const;

/** What the operator sets about people (environment of the server). */
export interface PeopleSettings {
  /** `closed` refuses sign-up (SVC_SIGNUP=closed). */
  signup: "open" | "closed";
  /** ISO 3166 alpha-2 codes (upper case) refused at sign-up (SVC_BLOCKED_COUNTRIES). */
  blockedCountries: readonly string[];
  /** Idle timeout of a session (default 30 minutes). */
  sessionIdleMs: number;
  /** Absolute lifetime of a session (default 12 hours). */
  sessionAbsoluteMs: number;
}

/** The default settings: sign-up open, no country blocked, 30 minutes idle, 12 hours absolute. */
export const DEFAULT_PEOPLE_SETTINGS: PeopleSettings = { signup: "open", blockedCountries: [], sessionIdleMs: PEOPLE_LIMITS.sessionIdleMs, sessionAbsoluteMs: PEOPLE_LIMITS.sessionAbsoluteMs };

/** What the people use cases need besides CoreDeps: the password hasher and the settings. */
export interface PeopleConfig {
  passwords: PasswordHasher;
  settings: PeopleSettings;
  /** Encrypts TOTP secrets at rest (AES-256-GCM under a key derived from the server secret). */
  sealer: SecretSealer;
}

/** Where a request came from, as the edge determined it (client address, trusted country). */
export interface RequestOrigin {
  /** The client address (the socket's, or the first X-Forwarded-For hop behind a trusted proxy). */
  clientAddress: string;
  /** ISO 3166 alpha-2 country from the trusted header, upper case, or null when unknown. */
  country: string | null;
}
