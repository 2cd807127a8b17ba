import { createHmac, createPrivateKey, randomBytes, sign, type KeyObject } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { NativeCrypto, ServerSecrets } from "@agentq/core";

/**
 * Loads the server secret (SVC_SECRET_KEY, else `<dataDir>/secret.key`, created once with mode
 * 0600) and derives one key per purpose from it, so a leaked cursor key says nothing about the
 * pepper that hashes credentials.
 */
export function loadSecrets(p: { secretKey: string | null; dataDir: string }): { secrets: ServerSecrets; source: "env" | "file" | "generated" } {
  let master: string;
  let source: "env" | "file" | "generated";
  if (p.secretKey !== null) {
    if (p.secretKey.length < 32) throw new Error("SVC_SECRET_KEY must be at least 32 characters (e.g. 64 hex characters from `openssl rand -hex 32`).");
    master = p.secretKey;
    source = "env";
  } else {
    const file = join(p.dataDir, "secret.key");
    if (existsSync(file)) {
      master = readFileSync(file, "utf8").trim();
      source = "file";
    } else {
      mkdirSync(p.dataDir, { recursive: true });
      master = randomBytes(32).toString("hex");
      writeFileSync(file, `${master}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
      source = "generated";
    }
  }
  return { secrets: deriveSecrets(master), source };
}

/**
 * Derives the per-purpose keys from the master secret (HMAC-SHA-256 with a purpose label): the
 * pepper, the cursor key, and the Ed25519 seed of the audit log's checkpoint key (label
 * `agentq/audit-log-key/v1`; docs/receipts.md); with them, node:crypto's implementation of the core's
 * Ed25519 signatures and token hashes (`NATIVE_CRYPTO`). A new SVC_SECRET_KEY is a new log key: list the
 * old key's verifier key in SVC_LOG_PREVIOUS_KEYS.
 */
export function deriveSecrets(master: string): ServerSecrets {
  const derive = (purpose: string) => new Uint8Array(createHmac("sha256", master).update(`agentq/${purpose}/v1`).digest());
  return { pepper: derive("pepper"), cursorKey: derive("cursor"), logSeed: derive("audit-log-key"), native: NATIVE_CRYPTO };
}

/** The PKCS#8 DER form of an Ed25519 private key holds its 32-byte seed after this fixed header (RFC 8410 §7). */
const ED25519_PKCS8_HEADER = Buffer.from("302e020100300506032b657004220420", "hex");

/** Imported Ed25519 keys by seed (hex), so a key is imported once; a server has one or two seeds, the bound is for hygiene. */
const ed25519Keys = new Map<string, KeyObject>();
const ED25519_KEYS_KEPT = 16;

function ed25519Key(seed: Uint8Array): KeyObject {
  const id = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString("hex");
  let key = ed25519Keys.get(id);
  if (key === undefined) {
    key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_HEADER, seed]), format: "der", type: "pkcs8" });
    if (ed25519Keys.size >= ED25519_KEYS_KEPT) ed25519Keys.clear();
    ed25519Keys.set(id, key);
  }
  return key;
}

/**
 * The core's Ed25519 signatures and token hashes by node:crypto (OpenSSL): the same bytes as its
 * @noble code (Ed25519 is deterministic), several times cheaper. Algorithms only: the keys come
 * with each call.
 */
export const NATIVE_CRYPTO: NativeCrypto = {
  ed25519Sign: (seed, message) => new Uint8Array(sign(null, message, ed25519Key(seed))),
  hmacSha256Hex: (key, text) => createHmac("sha256", key).update(text, "utf8").digest("hex"),
};
