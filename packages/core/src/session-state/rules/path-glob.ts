import { RE2JS } from "re2js";

// Rule path globs matched in linear time (DESIGN §2c "Hostile input"): a glob is translated into
// an RE2 regular expression and matched by re2js's DFA, so no glob and no path can make the
// matcher backtrack. The syntax is picomatch's as rules used it (dot files included, POSIX
// separators): `*`, `?`, `**` as a whole segment, `[...]` classes (`!` or `^` negates, POSIX
// `[:alpha:]` names), `{a,b}` alternatives and `{1..9}` / `{a..e}` ranges, the extglobs
// `@(a|b)`, `?(...)`, `*(...)`, `+(...)` and plain `(a|b)` groups, a leading `!` negating the
// whole glob; a path equal to the glob as written matches too. Not supported: the extglob
// `!(...)` (no regular expression says "anything but"), refused when the rule is written.

/** Limits of a glob's shape (its length is checked with the other trigger limits). */
export const GLOB_LIMITS = {
  /** Wildcards (`*`, `**`, `?`, classes, ranges, extglob and `(...)` groups). */
  wildcards: 16,
  /**
   * Single-character wildcards (`?`, classes, ranges): one after a star can double the states the
   * DFA walks through, so these are bounded more tightly (2^8 states fit its cache cheaply).
   */
  singleCharacter: 8,
  /** Instructions of the compiled RE2 program: bounds the work per character and the memory. */
  programSize: 1_000,
  /** Members of one `{a..b}` range. */
  rangeMembers: 100,
} as const;

/** Why a glob was refused: not a glob this matcher reads, or bigger than GLOB_LIMITS allow. */
export type GlobRefusal = { reason: "bad_glob"; problem: string } | { reason: "glob_too_complex"; problem: string; limit: number };

/** The translation's running count of wildcards. */
interface Count {
  wildcards: number;
  singles: number;
}

function wildcard(count: Count, single = false): void {
  if (++count.wildcards > GLOB_LIMITS.wildcards) throw new Refused({ reason: "glob_too_complex", problem: `it holds more than ${GLOB_LIMITS.wildcards} wildcards`, limit: GLOB_LIMITS.wildcards });
  if (single && ++count.singles > GLOB_LIMITS.singleCharacter) throw new Refused({ reason: "glob_too_complex", problem: `it holds more than ${GLOB_LIMITS.singleCharacter} single-character wildcards (?, [...], ranges)`, limit: GLOB_LIMITS.singleCharacter });
}

/** A compiled glob: `test` runs in time linear in the path's length. */
export interface PathGlob {
  glob: string;
  test(path: string): boolean;
}

/** Thrown inside the translation only; compileGlob turns it into its result. */
class Refused extends Error {
  constructor(readonly refusal: GlobRefusal) {
    super(refusal.problem);
  }
}

const REGEX_SPECIAL = new Set([..."\\.+*?()|[]{}^$"]);
const escapeChar = (c: string) => (REGEX_SPECIAL.has(c) ? `\\${c}` : c);
const escapeText = (s: string) => [...s].map(escapeChar).join("");
const POSIX_CLASSES = new Set(["alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit"]);

/** The index of the bracket closing the one at `open` (nesting counted, classes skipped), or -1. */
function closing(s: string, open: number, end: number, openChar: string, closeChar: string): number {
  let depth = 0;
  for (let i = open; i < end; i++) {
    const c = s[i];
    if (c === "[" && i > open) {
      const k = classEnd(s, i, end);
      if (k > 0) {
        i = k;
        continue;
      }
    }
    if (c === openChar) depth++;
    else if (c === closeChar && --depth === 0) return i;
  }
  return -1;
}

/** The index of the `]` closing the class opened at `open`, or -1 (then `[` is a literal). */
function classEnd(s: string, open: number, end: number): number {
  let i = open + 1;
  if (s[i] === "!" || s[i] === "^") i++;
  if (s[i] === "]") i++;
  for (; i < end; i++) {
    if (s[i] === "[" && s[i + 1] === ":") {
      const close = s.indexOf(":]", i + 2);
      if (close > 0 && close < end) {
        i = close + 1;
        continue;
      }
    }
    if (s[i] === "]") return i;
  }
  return -1;
}

/** The top-level pieces of s[start, end) split at `sep` (brackets, braces and classes nested). */
function splitTop(s: string, start: number, end: number, sep: string): [number, number][] {
  const parts: [number, number][] = [];
  let depth = 0;
  let from = start;
  for (let i = start; i < end; i++) {
    const c = s[i];
    if (c === "[") {
      const k = classEnd(s, i, end);
      if (k > 0) i = k;
    } else if (c === "{" || c === "(") depth++;
    else if ((c === "}" || c === ")") && depth > 0) depth--;
    else if (c === sep && depth === 0) {
      parts.push([from, i]);
      from = i + 1;
    }
  }
  parts.push([from, end]);
  return parts;
}

function classRegex(s: string, open: number, close: number): string {
  let i = open + 1;
  const negated = s[i] === "!" || s[i] === "^";
  if (negated) i++;
  let out = "";
  for (; i < close; i++) {
    const c = s[i] ?? "";
    if (c === "[" && s[i + 1] === ":") {
      const end = s.indexOf(":]", i + 2);
      const name = s.slice(i + 2, end);
      if (!POSIX_CLASSES.has(name)) throw new Refused({ reason: "bad_glob", problem: `unknown class [:${name}:]` });
      out += `[:${name}:]`;
      i = end + 1;
    } else out += c === "-" || c.charCodeAt(0) > 127 || /^[A-Za-z0-9]$/.test(c) ? c : `\\${c}`;
  }
  // A negated class never crosses a separator (picomatch's reading).
  return negated ? `[^${out}/]` : `[${out}]`;
}

function rangeMembers(a: string, b: string): string[] | null {
  const numeric = /^-?\d+$/;
  if (numeric.test(a) && numeric.test(b)) {
    const from = Number(a);
    const to = Number(b);
    const count = Math.abs(to - from) + 1;
    if (count > GLOB_LIMITS.rangeMembers) throw new Refused({ reason: "glob_too_complex", problem: `the range {${a}..${b}} has more than ${GLOB_LIMITS.rangeMembers} members`, limit: GLOB_LIMITS.rangeMembers });
    const pad = (/^-?0\d/.test(a) || /^-?0\d/.test(b)) ? Math.max(a.replace("-", "").length, b.replace("-", "").length) : 0;
    const step = from <= to ? 1 : -1;
    const out: string[] = [];
    for (let n = from; out.length < count; n += step) out.push(`${n < 0 ? "-" : ""}${String(Math.abs(n)).padStart(pad, "0")}`);
    return out;
  }
  if (/^[a-zA-Z]$/.test(a) && /^[a-zA-Z]$/.test(b)) {
    const from = a.charCodeAt(0);
    const to = b.charCodeAt(0);
    const step = from <= to ? 1 : -1;
    const out: string[] = [];
    for (let n = from; ; n += step) {
      out.push(String.fromCharCode(n));
      if (n === to) break;
    }
    return out;
  }
  return null;
}

/**
 * The regular expression of glob text s[start, end). `atBoundary`: the text starts a path segment
 * (the glob's start, after `/`, or the start of an alternative that itself starts one).
 */
function translate(s: string, start: number, end: number, atBoundary: boolean, endsSegment: boolean, count: Count): string {
  let out = "";
  let boundary = atBoundary;
  for (let i = start; i < end; ) {
    const c = s[i] ?? "";
    const next = s[i + 1];
    // A globstar: `**` alone in its segment.
    if (c === "*" && next === "*" && s[i + 2] !== "*" && boundary) {
      const j = i + 2;
      wildcard(count);
      const after = j < end ? s[j] : endsSegment ? undefined : "x";
      if (j >= end && endsSegment) {
        // `a/**` matches `a` too: the separator before is optional with what follows.
        // (picomatch: not after a segment ending in a star: `*/**` needs the separator.)
        const starBefore = out.endsWith("[^/]*/") || out.endsWith("[^/]+/");
        out = out.endsWith("/") && !starBefore ? `${out.slice(0, -1)}(?:/.*)?` : `${out}.*`;
        i = j;
        continue;
      }
      if (after === "/") {
        // `a/**/x`: zero or more segments, or (picomatch's reading) the path may end right after `a`.
        out = out.endsWith("/") ? `${out.slice(0, -1)}(?:/(?:[^/]*/)*|$)` : `${out}(?:[^/]*/)*`;
        i = j + 1;
        boundary = true;
        continue;
      }
    }
    if ((c === "@" || c === "?" || c === "+" || c === "*" || c === "!") && next === "(") {
      const close = closing(s, i + 1, end, "(", ")");
      if (close > 0) {
        if (c === "!") throw new Refused({ reason: "bad_glob", problem: "the extglob !(...) is not supported" });
        wildcard(count);
        const alts = splitTop(s, i + 2, close, "|").map(([a, b]) => translate(s, a, b, false, false, count));
        out += `(?:${alts.join("|")})${c === "?" ? "?" : c === "+" ? "+" : c === "*" ? "*" : ""}`;
        i = close + 1;
        boundary = false;
        continue;
      }
    }
    if (c === "(") {
      const close = closing(s, i, end, "(", ")");
      if (close > 0 && splitTop(s, i + 1, close, "|").length > 1) {
        wildcard(count);
        out += `(?:${splitTop(s, i + 1, close, "|").map(([a, b]) => translate(s, a, b, false, false, count)).join("|")})`;
        i = close + 1;
        boundary = false;
        continue;
      }
    }
    if (c === "{") {
      const close = closing(s, i, end, "{", "}");
      if (close > 0) {
        const alts = splitTop(s, i + 1, close, ",");
        const tail = close + 1 >= end ? endsSegment : s[close + 1] === "/";
        if (alts.length > 1) {
          out += `(?:${alts.map(([a, b]) => translate(s, a, b, boundary, tail, count)).join("|")})`;
          i = close + 1;
          boundary = false;
          continue;
        }
        const range = /^([^.]+)\.\.([^.]+)$/.exec(s.slice(i + 1, close));
        const members = range === null ? null : rangeMembers(range[1] ?? "", range[2] ?? "");
        if (members !== null) {
          wildcard(count, true);
          out += `(?:${members.map(escapeText).join("|")})`;
          i = close + 1;
          boundary = false;
          continue;
        }
        out += escapeText(s.slice(i, close + 1));
        i = close + 1;
        boundary = false;
        continue;
      }
    }
    if (c === "[") {
      const close = classEnd(s, i, end);
      if (close > 0) {
        wildcard(count, true);
        out += classRegex(s, i, close);
        i = close + 1;
        boundary = false;
        continue;
      }
    }
    if (c === "*") {
      let j = i;
      while (s[j] === "*" && j < end) j++;
      // A star alone as the glob's last segment needs one character (`a/*` does not match `a/`).
      const wholeLast = boundary && j >= end && endsSegment;
      wildcard(count);
      out += wholeLast ? "[^/]+" : "[^/]*";
      i = j;
      boundary = false;
      continue;
    }
    if (c === "?") {
      wildcard(count, true);
      out += "[^/]";
    }
    else out += escapeChar(c);
    boundary = c === "/";
    i++;
  }
  return out;
}

/** What every match of a regular expression starts and ends with; `exact` when it holds nothing but literals. */
export interface LiteralEnds {
  prefix: string;
  suffix: string;
  exact: boolean;
}

/**
 * The literal text every match of `source` (a translated glob) starts and ends with, read from
 * its tokens: an escaped special character or a plain one is a literal, unless a quantifier
 * follows it; a class, a group, `.` and the anchors are not. A top-level `|` leaves no ends (each
 * alternative would have its own). Lets the matcher refuse most paths with two string
 * comparisons before it runs an automaton; the automaton still decides every path that passes.
 */
export function literalEnds(source: string): LiteralEnds {
  const tokens: (string | null)[] = [];
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? "";
    if (c === "\\") {
      const next = source[i + 1] ?? "";
      tokens.push(REGEX_SPECIAL.has(next) ? next : null);
      i++;
    } else if (c === "[") {
      // A class: up to its first unescaped `]` after the opening (and a leading `^` or `]`).
      let j = i + 1;
      if (source[j] === "^") j++;
      if (source[j] === "]") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      tokens.push(null);
      i = j;
    } else if (c === "*" || c === "+" || c === "?" || c === "{") {
      // A quantifier makes what it follows optional or repeated: not a literal any more.
      if (tokens.length > 0) tokens[tokens.length - 1] = null;
      tokens.push(null);
    } else {
      if (c === "(") depth++;
      else if (c === ")") depth--;
      else if (c === "|" && depth === 0) return { prefix: "", suffix: "", exact: false };
      tokens.push(REGEX_SPECIAL.has(c) ? null : c);
    }
  }
  const firstSpecial = tokens.indexOf(null);
  if (firstSpecial < 0) {
    const text = tokens.join("");
    return { prefix: text, suffix: text, exact: true };
  }
  const lastSpecial = tokens.lastIndexOf(null);
  return { prefix: tokens.slice(0, firstSpecial).join(""), suffix: tokens.slice(lastSpecial + 1).join(""), exact: false };
}

/** A cheap necessary condition of a match: the path holds the literal ends, apart. */
function literalFilter(ends: LiteralEnds): (path: string) => boolean {
  if (ends.exact) return (path) => path === ends.prefix;
  const least = ends.prefix.length + ends.suffix.length;
  return (path) => path.length >= least && path.startsWith(ends.prefix) && path.endsWith(ends.suffix);
}

/**
 * Compiles a glob, or tells why it is refused. Never throws; never backtracks.
 */
export function compileGlob(glob: string): { ok: true; glob: PathGlob } | { ok: false; refusal: GlobRefusal } {
  let body = glob;
  while (body.startsWith("./")) body = body.slice(2);
  let negated = false;
  while (body.startsWith("!") && !body.startsWith("!(")) {
    negated = !negated;
    body = body.slice(1);
  }
  // Consecutive globstars are one (`a/**/**` is `a/**`).
  body = body.replace(/(^|\/)\*\*(?:\/\*\*)+(?=\/|$)/g, "$1**");
  let re: RE2JS;
  let holdsEnds: (path: string) => boolean;
  try {
    const source = translate(body, 0, body.length, true, true, { wildcards: 0, singles: 0 });
    // After a trailing wildcard a trailing separator in the path is optional (picomatch's reading).
    const optionalSeparator = /(\[\^\/\][*+]|\])$/.test(source);
    re = RE2JS.compile(`^(?:${source})${optionalSeparator ? "/?" : ""}$`);
    const ends = literalEnds(source);
    holdsEnds = literalFilter(optionalSeparator ? { prefix: ends.prefix, suffix: "", exact: false } : ends);
  } catch (e) {
    if (e instanceof Refused) return { ok: false, refusal: e.refusal };
    return { ok: false, refusal: { reason: "bad_glob", problem: "it does not translate into a regular expression" } };
  }
  if (re.programSize() > GLOB_LIMITS.programSize) return { ok: false, refusal: { reason: "glob_too_complex", problem: `it compiles to more than ${GLOB_LIMITS.programSize} instructions`, limit: GLOB_LIMITS.programSize } };
  // Most paths of a change miss most globs: the literal ends refuse them before the automaton runs.
  return { ok: true, glob: { glob, test: (path) => (path === glob && !negated) || (holdsEnds(path) && re.matches(path)) !== negated } };
}
