import { createHmac, createPrivateKey, randomBytes, sign } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ServerSecrets } from "@agentq/core";

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
 * `agentq/audit-log-key/v1`; docs/receipts.md); with them, node:crypto's signer of that key and
 * hasher of tokens (the core's own results, natively). A new SVC_SECRET_KEY is a new log key: list the
 * old key's verifier key in SVC_LOG_PREVIOUS_KEYS.
 */
export function deriveSecrets(master: string): ServerSecrets {
  const derive = (purpose: string) => new Uint8Array(createHmac("sha256", master).update(`agentq/${purpose}/v1`).digest());
  const logSeed = derive("audit-log-key");
  const pepper = derive("pepper");
  return { pepper, cursorKey: derive("cursor"), logSeed, logSign: nativeEd25519Signer(logSeed), tokenHash: nativeTokenHash(pepper) };
}

/** The core's `hashToken(pepper, token)` (HMAC-SHA-256, hex) by node:crypto: the same value, about five times cheaper than @noble/hashes. */
export function nativeTokenHash(pepper: Uint8Array): (token: string) => string {
  const key = Buffer.from(pepper);
  return (token) => createHmac("sha256", key).update(token, "utf8").digest("hex");
}

/** The PKCS#8 DER form of an Ed25519 private key holds its 32-byte seed after this fixed header (RFC 8410 §7). */
const ED25519_PKCS8_HEADER = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * Ed25519 signing by node:crypto (OpenSSL) with the key of `seed`, imported once: the same
 * signatures as the core's @noble/curves (Ed25519 is deterministic), about ten times cheaper.
 */
export function nativeEd25519Signer(seed: Uint8Array): (message: Uint8Array) => Uint8Array {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_HEADER, seed]), format: "der", type: "pkcs8" });
  return (message) => new Uint8Array(sign(null, message, key));
}
