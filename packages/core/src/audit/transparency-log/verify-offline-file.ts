import { verifyAuditExport } from "../verify-audit-export.ts";
import { parseVerifierKey } from "./signed-note.ts";
import { verifyCheckpointNote, verifyConsistencyBundle, verifyMessageReceipt, type ReceiptFault } from "./verify-receipt.ts";

/**
 * One offline check for every file the service hands out or a client assembles (what `agentq
 * receipt verify` and `pnpm audit:verify` run; docs/receipts.md): the kind is read from the
 * file, the keys trusted are the caller's or else the file's own, and a failure is one of a few
 * classes. Pure: the caller reads the file and the keys.
 */

/** What a file is: a message's receipt, a consistency bundle, a checkpoint note, or a chain export (JSON lines). */
export type OfflineFileKind = "receipt" | "consistency" | "checkpoint" | "export";

/**
 * Why a file does not verify, one class per kind of damage:
 * `malformed` (not a file of a known kind, or a checkpoint that is not one), `no_key` (a signed
 * file, no key given and none embedded), `signature` (no trusted key signed a checkpoint, or its
 * signature is bad), `origin` (another workspace's or another server's log), `row` (a record or a
 * chain row that does not match: another message, another position, a changed, removed or
 * reordered row of an export), `proof` (an inclusion or consistency proof that does not lead to
 * the checkpoint's root).
 */
export type OfflineFailure = "malformed" | "no_key" | "signature" | "origin" | "row" | "proof";

/** Whose keys were trusted: the caller's (`given`), the file's own `verifier_keys` (`embedded`), or none needed (an export). */
export type TrustedKeySource = "given" | "embedded" | "none";

/** The outcome: what was checked and what it established, or the failure class and its specifics. */
export type OfflineVerification =
  | { ok: true; kind: OfflineFileKind; keys: TrustedKeySource; facts: Record<string, unknown> }
  | { ok: false; kind: OfflineFileKind | null; keys: TrustedKeySource; failure: OfflineFailure; fault: string; facts: Record<string, unknown> };

const RECEIPT_FAILURE: Readonly<Record<ReceiptFault, OfflineFailure>> = {
  unreadable: "malformed",
  checkpoint_malformed: "malformed",
  checkpoint_signature: "signature",
  wrong_origin: "origin",
  record_mismatch: "row",
  proof_failed: "proof",
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The file's own verifier keys (`verifier_keys`: an array of verifier key strings), or none when absent or not all valid. */
function embeddedKeys(value: Record<string, unknown>): string[] {
  const keys = value["verifier_keys"];
  if (!Array.isArray(keys) || keys.length > 100 || !keys.every((k) => typeof k === "string" && parseVerifierKey(k) !== null)) return [];
  return keys as string[];
}

/** The kind of a file, from its first non-blank character and its fields. */
function kindOf(text: string): { kind: OfflineFileKind; value: unknown } | null {
  if (!text.trimStart().startsWith("{")) return text.trim() === "" ? null : { kind: "checkpoint", value: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not one JSON document: JSON lines (an export) when its first line is one row.
    const first = text.trimStart().split("\n", 1)[0] ?? "";
    try {
      const row: unknown = JSON.parse(first);
      return isObject(row) && "seq" in row ? { kind: "export", value: text } : null;
    } catch {
      return null;
    }
  }
  if (!isObject(value)) return null;
  if ("inclusion" in value || "record" in value) return { kind: "receipt", value };
  if ("consistency" in value) return { kind: "consistency", value };
  if ("seq" in value) return { kind: "export", value: text };
  return null;
}

/**
 * Verifies a file offline. The keys trusted are `verifierKeys` when any are given (the file's own
 * are then ignored), else the `verifier_keys` the file embeds (which proves only that the file is
 * consistent with itself: `keys` says which was used). An export needs no key: its rows are
 * checked against their chain hashes.
 */
export function verifyOfflineFile(text: string, p: { verifierKeys: readonly string[]; expectedOrigin?: string }): OfflineVerification {
  const found = kindOf(text);
  if (found === null) return { ok: false, kind: null, keys: "none", failure: "malformed", fault: "unknown_kind", facts: {} };
  const { kind, value } = found;
  if (kind === "export") {
    const r = verifyAuditExport(text.split("\n"));
    if (r.ok) return { ok: true, kind, keys: "none", facts: { rows: r.rows, withheld: r.withheld, head: r.head } };
    return { ok: false, kind, keys: "none", failure: r.reason === "unreadable" ? "malformed" : "row", fault: r.reason, facts: { line: r.line, seq: r.seq, id: r.id } };
  }
  const embedded = isObject(value) ? embeddedKeys(value) : [];
  const keys: TrustedKeySource = p.verifierKeys.length > 0 ? "given" : embedded.length > 0 ? "embedded" : "none";
  if (keys === "none") return { ok: false, kind, keys, failure: "no_key", fault: "no_key", facts: {} };
  const verifierKeys = keys === "given" ? p.verifierKeys : embedded;
  const options = { verifierKeys, ...(p.expectedOrigin === undefined ? {} : { expectedOrigin: p.expectedOrigin }) };
  const r = kind === "receipt" ? verifyMessageReceipt(value, options) : kind === "consistency" ? verifyConsistencyBundle(value, options) : verifyCheckpointNote(value, options);
  if (!r.ok) return { ok: false, kind, keys, failure: RECEIPT_FAILURE[r.fault], fault: r.fault, facts: {} };
  const facts: Record<string, unknown> = { origin: r.origin, tree_size: r.treeSize };
  if (kind === "receipt" && isObject(value) && isObject(value["inclusion"])) Object.assign(facts, { message_id: value["message_id"], seq: value["inclusion"]["seq"] });
  if (kind === "consistency" && isObject(value) && isObject(value["consistency"])) facts["from"] = value["consistency"]["from"];
  return { ok: true, kind, keys, facts };
}
