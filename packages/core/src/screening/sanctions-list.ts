import type { SanctionsScreen, ScreenedParty, ScreeningResult } from "../ports.ts";

/** One entry of a sanctions list: who it names (any of the three) and the status it sets. */
export interface SanctionsListEntry {
  /** A whole workspace, or (with `ai_account_id` or `name`) the workspace the account is in. */
  workspace_id?: string;
  ai_account_id?: string;
  /** A friendly name (matched in `workspace_id` when given, else in every workspace). */
  name?: string;
  status: "blocked" | "review";
}

/**
 * Parses a sanctions list: a JSON array of entries, or CSV with a header line naming the
 * columns `workspace_id`, `ai_account_id`, `name`, `status` (any order, empty cells allowed;
 * no quoting: ids and friendly names never contain commas).
 * @throws Error naming the line of an entry that names nobody or has another status.
 */
export function parseSanctionsList(text: string): SanctionsListEntry[] {
  const trimmed = text.trim();
  const raw: Record<string, unknown>[] = [];
  if (trimmed.startsWith("[")) {
    const parsed = JSON.parse(trimmed) as unknown;
    if (!Array.isArray(parsed)) throw new Error("sanctions list: expected a JSON array");
    for (const e of parsed) raw.push(typeof e === "object" && e !== null ? (e as Record<string, unknown>) : {});
  } else if (trimmed !== "") {
    const lines = trimmed.split(/\r?\n/).filter((l) => l.trim() !== "" && !l.startsWith("#"));
    const header = (lines.shift() ?? "").split(",").map((h) => h.trim().toLowerCase());
    for (const line of lines) {
      const cells = line.split(",").map((c) => c.trim());
      raw.push(Object.fromEntries(header.map((h, i) => [h, cells[i] === "" ? undefined : cells[i]])));
    }
  }
  return raw.map((e, i) => {
    const status = e["status"];
    if (status !== "blocked" && status !== "review") throw new Error(`sanctions list: entry ${i + 1} has status ${String(status)} (blocked or review)`);
    const entry: SanctionsListEntry = { status };
    for (const k of ["workspace_id", "ai_account_id", "name"] as const) if (typeof e[k] === "string" && e[k] !== "") entry[k] = e[k];
    if (entry.workspace_id === undefined && entry.ai_account_id === undefined && entry.name === undefined) throw new Error(`sanctions list: entry ${i + 1} names nobody`);
    return entry;
  });
}

/** The default screen: everyone is clear. */
export const allowAllSanctionsScreen: SanctionsScreen = { screen: async () => ({ status: "clear" }) };

/**
 * A SanctionsScreen over a fixed list (e.g. a file read at start-up). An entry with only
 * `workspace_id` lists the whole workspace; with `ai_account_id` one account; with `name` the
 * accounts of that friendly name (in `workspace_id` when given). `blocked` wins over `review`.
 */
export function listSanctionsScreen(entries: readonly SanctionsListEntry[]): SanctionsScreen {
  const matchOf = (e: SanctionsListEntry, party: ScreenedParty): "workspace" | "ai_account" | "name" | null => {
    if (e.workspace_id !== undefined && e.workspace_id !== party.workspaceId) return null;
    if (e.ai_account_id !== undefined) return e.ai_account_id === party.accountId ? "ai_account" : null;
    if (e.name !== undefined) return e.name === party.friendlyName ? "name" : null;
    return "workspace";
  };
  return {
    async screen(p): Promise<ScreeningResult> {
      let found: ScreeningResult = { status: "clear" };
      for (const party of p.parties) {
        for (const e of entries) {
          const matchedOn = matchOf(e, party);
          if (matchedOn === null) continue;
          if (e.status === "blocked") return { status: "blocked", party, matchedOn };
          if (found.status === "clear") found = { status: "review", party, matchedOn };
        }
      }
      return found;
    },
  };
}
