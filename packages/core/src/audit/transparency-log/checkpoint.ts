import { base64Decode, base64Encode } from "../../encoding/base64.ts";
import { HASH_SIZE } from "./tree-hashing.ts";

/**
 * Checkpoints (C2SP tlog-checkpoint): the text of a signed note that commits to a tree head,
 *
 *     <origin>\n<tree size in decimal>\n<base64 root hash>\n
 *
 * The origin names the log: `<PUBLIC_BASE_URL host>/agentq/<workspace id>`, one log per
 * workspace, all signed by the server's one key named `<host>/agentq` (DESIGN §2c).
 */
export interface Checkpoint {
  origin: string;
  treeSize: number;
  rootHash: Uint8Array;
}

/** The host part (`host[:port]`) of the public base URL, as it appears in the log's names. */
function hostOf(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).host;
}

/** The name of the log's signing key: `<host>/agentq`. */
export function logKeyName(publicBaseUrl: string): string {
  return `${hostOf(publicBaseUrl)}/agentq`;
}

/** The origin line of a workspace's log: `<host>/agentq/<workspace id>`. */
export function logOrigin(publicBaseUrl: string, workspaceId: string): string {
  return `${logKeyName(publicBaseUrl)}/${workspaceId}`;
}

/** The note text of a checkpoint (three lines, no extension lines). */
export function formatCheckpoint(c: Checkpoint): string {
  return `${c.origin}\n${c.treeSize}\n${base64Encode(c.rootHash)}\n`;
}

/**
 * Reads a checkpoint's note text (extension lines after the third are allowed and ignored), or
 * null when it is not one: an empty origin, a size with leading zeros or beyond 2^53, a root
 * that is not 32 bytes of base64, or an empty extension line.
 */
export function parseCheckpoint(text: string): Checkpoint | null {
  if (!text.endsWith("\n")) return null;
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3 || lines.slice(3).some((l) => l === "")) return null;
  const [origin = "", size = "", root = ""] = lines;
  if (origin === "" || !/^(0|[1-9][0-9]*)$/.test(size)) return null;
  const treeSize = Number(size);
  const rootHash = base64Decode(root);
  if (!Number.isSafeInteger(treeSize) || rootHash === null || rootHash.length !== HASH_SIZE) return null;
  return { origin, treeSize, rootHash };
}
