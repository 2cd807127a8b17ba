import type { SecretSealer } from "@agentq/core";
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from "node:crypto";

/**
 * The production SecretSealer: AES-256-GCM (node:crypto) under a key derived from the server
 * secret (HMAC-SHA-256 of the pepper with the label `agentq/secret-seal/v1`), a fresh 96-bit
 * nonce per seal. Sealed form: `v1.<nonce>.<tag>.<ciphertext>`, base64url. `open` returns null
 * for anything it did not seal under this key (tampered, truncated, another server's secret).
 */
export function aesGcmSecretSealer(pepper: Uint8Array): SecretSealer {
  const key = createHmac("sha256", pepper).update("agentq/secret-seal/v1").digest();
  return {
    seal(plaintext) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", nonce.toString("base64url"), cipher.getAuthTag().toString("base64url"), ciphertext.toString("base64url")].join(".");
    },
    open(sealed) {
      const [version, nonce, tag, ciphertext] = sealed.split(".");
      if (version !== "v1" || nonce === undefined || tag === undefined || ciphertext === undefined) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}
