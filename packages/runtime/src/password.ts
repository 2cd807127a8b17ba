import { hash, verify } from "@node-rs/argon2";
import type { PasswordHasher } from "@agentq/core";
import { randomBytes } from "node:crypto";

/**
 * argon2id parameters: the library's defaults, OWASP's recommended minimum (19 MiB, 2
 * iterations, 1 lane), about 60 ms per hash on one core.
 */
// 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot read).
const OPTIONS = { algorithm: 2 } as const;

/**
 * The production PasswordHasher: argon2id through `@node-rs/argon2` (prebuilt native binaries,
 * no build script). PHC strings `$argon2id$v=19$m=19456,t=2,p=1$...`. Verifying without a hash
 * (no such person) verifies against a dummy hash made once per process, so both failures cost
 * one argon2 verification.
 */
export function argon2PasswordHasher(): PasswordHasher {
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => hash(password, OPTIONS),
    async verify(stored, password) {
      dummy ??= hash(randomBytes(16).toString("hex"), OPTIONS);
      const target = stored ?? (await dummy);
      try {
        const ok = await verify(target, password);
        return stored !== null && ok;
      } catch {
        // A malformed stored hash never signs anyone in.
        return false;
      }
    },
  };
}
