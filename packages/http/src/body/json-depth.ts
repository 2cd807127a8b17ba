import { malformed } from "@agentq/core";

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Checks, in one linear scan and without recursion, that JSON text nests no deeper than
 * `maxDepth` objects and arrays (the top-level container is depth 1). Brackets inside strings
 * do not count. The text need not be valid JSON: this runs before the parser, so a hostile
 * nesting never reaches it.
 * @throws DomainError SVC_MALFORMED_REQUEST with details.max_depth when nested too deep.
 */
export function assertJsonDepth(text: string, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i++;
      else if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) {
      inString = true;
    } else if (ch === OPEN_BRACE || ch === OPEN_BRACKET) {
      depth++;
      if (depth > maxDepth) throw malformed(`The JSON body is nested deeper than ${maxDepth} levels.`, { max_depth: maxDepth });
    } else if (ch === CLOSE_BRACE || ch === CLOSE_BRACKET) {
      depth--;
    }
  }
}
