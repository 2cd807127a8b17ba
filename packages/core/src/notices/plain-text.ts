import { malformed } from "../errors.ts";

/**
 * Characters a notice's text may not carry: C0 controls other than tab, line feed and carriage
 * return, DEL, the C1 controls, and the bidirectional embedding, override and isolate characters
 * (U+202A..U+202E, U+2066..U+2069), which can make a text read differently from what it says.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const REFUSED_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/u;

/**
 * Checks every string inside `value` (objects and arrays walked) for refused characters.
 * @throws DomainError SVC_MALFORMED_REQUEST with details {field, reason: "control_or_bidi_character"}.
 */
export function assertPlainText(value: unknown, field: string): void {
  if (typeof value === "string") {
    if (REFUSED_CHARACTERS.test(value)) throw malformed(`${field} contains a control or bidirectional-override character; notices are plain text.`, { field, reason: "control_or_bidi_character" });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlainText(v, `${field}/${i}`));
    return;
  }
  if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) assertPlainText(v, field === "" ? k : `${field}/${k}`);
  }
}
