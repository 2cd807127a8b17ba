import { readFileSync } from "node:fs";
import { listSanctionsScreen, parseSanctionsList, type SanctionsScreen } from "@agentq/core";

/**
 * The file-backed sanctions screen: reads the list at `path` once (JSON array of
 * `{workspace_id?, ai_account_id?, name?, status: "blocked" | "review"}` or CSV with those
 * columns) and screens every send's sender and recipient against it. Restart to reload.
 * @throws Error when the file cannot be read or an entry is invalid (the server refuses to start
 *   with a list it cannot apply).
 */
export function loadSanctionsScreen(path: string): { screen: SanctionsScreen; entries: number } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`SVC_SANCTIONS_LIST: cannot read ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const entries = parseSanctionsList(text);
  return { screen: listSanctionsScreen(entries), entries: entries.length };
}
