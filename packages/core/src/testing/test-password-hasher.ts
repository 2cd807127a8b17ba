import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { constantTimeEqual } from "../access/token.ts";
import type { PasswordHasher } from "../ports.ts";

/**
 * A fast PasswordHasher for tests of the core (salted SHA-256; never for real passwords: the
 * server uses argon2id). Same contract as the real one: a null hash verifies against a dummy
 * and gives false; a malformed hash gives false.
 */
export function testPasswordHasher(): PasswordHasher {
  const digest = (salt: string, password: string) => bytesToHex(sha256(utf8ToBytes(`${salt}:${password}`)));
  return {
    async hash(password) {
      const salt = bytesToHex(randomBytes(8));
      return `$test-sha256$${salt}$${digest(salt, password)}`;
    },
    async verify(hash, password) {
      const parts = (hash ?? "$test-sha256$0000000000000000$").split("$");
      const [, scheme, salt, expected] = parts;
      if (scheme !== "test-sha256" || salt === undefined || expected === undefined) return false;
      const actual = digest(salt, password);
      return hash !== null && constantTimeEqual(actual, expected);
    },
  };
}
