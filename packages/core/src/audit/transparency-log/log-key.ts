import { requirePublicBaseUrl, type ServerSecrets } from "../../deps.ts";
import { logKeyName } from "./checkpoint.ts";
import { ed25519NoteSigner, parseVerifierKey, type NoteSigner } from "./signed-note.ts";

/** The log's keys: the one that signs checkpoints, and every key a verifier may trust. */
export interface AuditLogKeys {
  /** The current key, named `<host>/agentq`. */
  signer: NoteSigner;
  /** Verifier key strings: the current key's first, then the earlier keys still listed (rotation). */
  verifierKeys: string[];
}

/**
 * Reads a list of verifier keys (SVC_LOG_PREVIOUS_KEYS: separated by commas or white space).
 * @throws Error naming the first entry that is not a verifier key string.
 */
export function parseVerifierKeyList(text: string | undefined): string[] {
  const keys = (text ?? "").split(/[\s,]+/).filter((k) => k !== "");
  const bad = keys.find((k) => parseVerifierKey(k) === null);
  if (bad !== undefined) throw new Error(`not a verifier key (<name>+<8 hex digits>+<base64 key>): ${JSON.stringify(bad)}`);
  return keys;
}

/** Signers by seed (the secrets object's own array) and key name. */
const signers = new WeakMap<Uint8Array, Map<string, NoteSigner>>();

/**
 * The audit log's keys from the server's secrets (`logSeed`, the Ed25519 seed) and public base
 * URL, plus the earlier keys still listed for verification (verifier key strings; an invalid
 * one is skipped). The signer is derived once per seed and name (deriving the public key costs a
 * scalar multiplication); it signs with `secrets.native` when the runtime supplies it.
 * @throws Error when `deps.publicBaseUrl` is not set (the key's name is its host; the core invents none).
 */
export function auditLogKeys(deps: { secrets: Pick<ServerSecrets, "logSeed" | "native">; publicBaseUrl?: string; previousLogKeys?: readonly string[] }): AuditLogKeys {
  const name = logKeyName(requirePublicBaseUrl(deps));
  const seed = deps.secrets.logSeed;
  let byName = signers.get(seed);
  if (byName === undefined) {
    byName = new Map();
    signers.set(seed, byName);
  }
  let signer = byName.get(name);
  if (signer === undefined) {
    signer = ed25519NoteSigner(name, seed, deps.secrets.native);
    byName.set(name, signer);
  }
  const previous = (deps.previousLogKeys ?? []).filter((k) => k !== signer.verifierKey && parseVerifierKey(k) !== null);
  return { signer, verifierKeys: [signer.verifierKey, ...previous] };
}

/**
 * The verifier key document served at `/.well-known/agentq-log-key` (text/plain): one verifier key
 * string per line, the current key first, then the earlier keys still listed (SVC_LOG_PREVIOUS_KEYS).
 * @throws Error when `deps.publicBaseUrl` is not set.
 */
export function auditLogKeyDocument(deps: Parameters<typeof auditLogKeys>[0]): string {
  return auditLogKeys(deps).verifierKeys.map((k) => `${k}\n`).join("");
}
