import { isValid, monotonicFactory } from "ulidx";

/** Source of new ids (ULIDs). Injected so tests can make ids deterministic. */
export interface IdSource {
  /** Returns a new ULID, greater than every id this source returned before. */
  next(): string;
}

/** The production id source: monotonic ULIDs. */
export function ulidSource(): IdSource {
  const make = monotonicFactory();
  return { next: () => make() };
}

/** True when `value` is a well-formed ULID (26 Crockford base-32 characters, case-sensitive upper). */
export function isUlid(value: unknown): value is string {
  return typeof value === "string" && value.length === 26 && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value) && isValid(value);
}
