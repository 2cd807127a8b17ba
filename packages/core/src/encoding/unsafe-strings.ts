import { malformed } from "../errors.ts";

/** One string of a request that PostgreSQL cannot store: where it is (a JSON pointer) and why. */
export interface UnsafeString {
  /** JSON pointer (RFC 6901) to the string, or to the object whose key it is; `/` for the value itself. */
  path: string;
  message: string;
}

// U+0000 (text and jsonb reject it) and any surrogate code unit: the second pattern, run only on
// strings that hold one, tells a lone surrogate (not valid UTF-8, refused by jsonb's \u escapes)
// from a proper pair. Both are linear (lookarounds of one code unit).
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this looks for.
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `text` cannot be stored, or null when it can. */
function unsafeReason(text: string): string | null {
  if (!SUSPECT.test(text)) return null;
  if (text.includes("\u0000")) return "must not contain U+0000";
  return LONE_SURROGATE.test(text) ? "must not contain a lone surrogate" : null;
}

function pointerSegment(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * The strings of `value` (a parsed JSON body, a query, a form: strings, arrays, plain objects,
 * object keys included) that hold U+0000 or a lone surrogate, which PostgreSQL refuses in text and
 * jsonb alike (DESIGN §2c). Walks iteratively in document order, so any nesting is safe, and stops
 * after `max` findings; linear in the size of `value`.
 */
export function findUnsafeStrings(value: unknown, max = 10): UnsafeString[] {
  const found: UnsafeString[] = [];
  const stack: { value: unknown; path: string }[] = [{ value, path: "" }];
  while (stack.length > 0 && found.length < max) {
    const { value: node, path } = stack.pop() as { value: unknown; path: string };
    if (typeof node === "string") {
      const reason = unsafeReason(node);
      if (reason !== null) found.push({ path: path === "" ? "/" : path, message: reason });
    } else if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ value: node[i], path: `${path}/${i}` });
    } else if (typeof node === "object" && node !== null) {
      const entries = Object.entries(node);
      const keyFindings: UnsafeString[] = [];
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        const reason = unsafeReason(key);
        if (reason !== null) keyFindings.push({ path: path === "" ? "/" : path, message: `a key ${reason}` });
        stack.push({ value: child, path: `${path}/${pointerSegment(key)}` });
      }
      for (const f of keyFindings.reverse()) if (found.length < max) found.push(f);
    }
  }
  return found;
}

/**
 * Refuses `value` when a string in it holds U+0000 or a lone surrogate: the one check every
 * request input passes before anything reads it further (the operation executor's input check,
 * the people routes' bodies, OAuth bodies, query strings and forms at the HTTP edge).
 * @throws DomainError SVC_MALFORMED_REQUEST with details.errors [{ path, message }] (at most 10).
 */
export function assertSafeStrings(value: unknown): void {
  const errors = findUnsafeStrings(value);
  const first = errors[0];
  if (first !== undefined) throw malformed(`Invalid request: ${first.path} ${first.message}.`, { errors });
}
