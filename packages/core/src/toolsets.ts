// Toolsets: the groups of the operation catalogue an MCP client may ask for by name (DESIGN §2c
// "Agents' context"). The names live here, apart from the catalogue (catalogue.ts says which
// operation is in which), so an area's operations may name them without importing the catalogue.
import { malformed } from "./errors.ts";

/** The toolsets, in the order they are listed. */
export const TOOLSETS = ["messaging", "session_state", "admin"] as const;
/** A toolset's name. */
export type Toolset = (typeof TOOLSETS)[number];

/** The most names a toolset list may carry (each name once is three; repeats are allowed up to this). */
const MAX_TOOLSET_NAMES = 16;

/**
 * The toolsets named in comma-separated lists (the `toolsets` query parameter, the
 * `X-MCP-Toolsets` header), each name trimmed; empty entries are ignored. Null when the lists
 * name none (the caller's default then applies).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field, and `unknown` with `known`) for a
 *   name that is not a toolset, or more than 16 names.
 */
export function parseToolsets(lists: readonly string[], field: string): Toolset[] | null {
  const names = lists.flatMap((l) => l.split(",")).map((n) => n.trim()).filter((n) => n !== "");
  if (names.length > MAX_TOOLSET_NAMES) throw malformed(`At most ${MAX_TOOLSET_NAMES} toolset names.`, { field });
  if (names.length === 0) return null;
  const unknown = [...new Set(names.filter((n) => !(TOOLSETS as readonly string[]).includes(n)))];
  if (unknown.length > 0) throw malformed(`Unknown toolset: ${unknown.map((n) => n.slice(0, 64)).join(", ")}.`, { field, unknown: unknown.map((n) => n.slice(0, 64)), known: [...TOOLSETS] });
  return TOOLSETS.filter((t) => names.includes(t));
}
