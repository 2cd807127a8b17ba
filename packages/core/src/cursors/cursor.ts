import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { base64UrlDecode, base64UrlEncode } from "../encoding/base64url.ts";
import { DomainError } from "../errors.ts";
import { canonicalJson } from "../idempotency/canonical-json.ts";
import { DAY_MS } from "../time/duration.ts";

/** How long a cursor stays valid (spec §Limits). */
export const CURSOR_LIFETIME_MS = DAY_MS;

/** Filter values a cursor is bound to: every narrowing filter of the query, null when unset. */
export type CursorFilters = Readonly<Record<string, string | number | boolean | null>>;

/** What a cursor binds: the list it belongs to and where the next page starts. */
export interface CursorScope {
  /** The list's resource name, e.g. `messages`, `recipients`. */
  resource: string;
  workspaceId: string;
  /** Every narrowing filter of the query (also the principal's own id where the list is per-account). */
  filters: CursorFilters;
}

interface CursorBody {
  r: string;
  w: string;
  f: string;
  p: string;
  t: number;
}

/**
 * Issues an opaque paging cursor: base64url of a small JSON body (resource, workspace, the
 * canonical filter set, the keyset position the store returned, the issue time) followed by `.`
 * and the base64url HMAC-SHA-256 of that body under `deps.secrets.cursorKey`.
 */
export function encodeCursor(deps: { secrets: { cursorKey: Uint8Array }; clock: { now(): Date } }, scope: CursorScope, position: string): string {
  const body: CursorBody = { r: scope.resource, w: scope.workspaceId, f: canonicalJson(scope.filters), p: position, t: deps.clock.now().getTime() };
  const bodyText = base64UrlEncode(utf8ToBytes(JSON.stringify(body)));
  return `${bodyText}.${base64UrlEncode(sign(deps.secrets.cursorKey, bodyText))}`;
}

/**
 * Reads a cursor issued by `encodeCursor` for the same resource, workspace and filter set and
 * returns its keyset position. A null or empty cursor means the first page (returns null).
 * @throws DomainError SVC_CURSOR_EXPIRED when the cursor is not one of ours (malformed or
 *   tampered with), belongs to another resource, workspace or filter set, or is older than 24 h.
 */
export function decodeCursor(deps: { secrets: { cursorKey: Uint8Array }; clock: { now(): Date } }, scope: CursorScope, cursor: string | null | undefined): string | null {
  if (cursor === null || cursor === undefined || cursor === "") return null;
  const refuse = (why: string): DomainError => new DomainError("SVC_CURSOR_EXPIRED", `The cursor is not valid for this query (${why}); start again without a cursor.`);
  if (cursor.length > 2048) throw refuse("malformed");
  const dot = cursor.indexOf(".");
  if (dot <= 0) throw refuse("malformed");
  const bodyText = cursor.slice(0, dot);
  const mac = base64UrlDecode(cursor.slice(dot + 1));
  if (mac === null || !constantTimeEqual(mac, sign(deps.secrets.cursorKey, bodyText))) throw refuse("signature");
  const bytes = base64UrlDecode(bodyText);
  if (bytes === null) throw refuse("malformed");
  let body: CursorBody;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes)) as CursorBody;
  } catch {
    throw refuse("malformed");
  }
  if (body.r !== scope.resource || body.w !== scope.workspaceId || body.f !== canonicalJson(scope.filters)) throw refuse("other query");
  const age = deps.clock.now().getTime() - body.t;
  if (!(age >= -60_000 && age <= CURSOR_LIFETIME_MS)) throw refuse("expired");
  if (typeof body.p !== "string") throw refuse("malformed");
  return body.p;
}

function sign(key: Uint8Array, bodyText: string): Uint8Array {
  return hmac(sha256, key, utf8ToBytes(`agentq-cursor-v1.${bodyText}`));
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}
