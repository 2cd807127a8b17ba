import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import type { SecretSealer } from "../ports.ts";

/**
 * A SecretSealer for tests of the core: it only marks and hex-encodes (NOT encryption; the server
 * uses AES-256-GCM). Same contract: `open` gives back what `seal` was given, and null for
 * anything else.
 */
export function testSecretSealer(): SecretSealer {
  return {
    seal: (plaintext) => `test-sealed:${bytesToHex(utf8ToBytes(plaintext))}`,
    open(sealed) {
      if (!sealed.startsWith("test-sealed:")) return null;
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(hexToBytes(sealed.slice("test-sealed:".length)));
      } catch {
        return null;
      }
    },
  };
}
