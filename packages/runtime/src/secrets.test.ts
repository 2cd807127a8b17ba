import { randomBytes } from "node:crypto";
import { ed25519NoteSigner, hashToken } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { deriveSecrets, nativeEd25519Signer, nativeTokenHash } from "./secrets.ts";

// The sealer signs checkpoints with node:crypto's Ed25519 (secrets.logSign); the core's
// @noble/curves signer is the reference: Ed25519 is deterministic, so the bytes must be equal.

describe("the audit log's native Ed25519 signer", () => {
  it("signs exactly as the core's @noble/curves signer, for any seed and message", () => {
    for (let i = 0; i < 50; i++) {
      const seed = new Uint8Array(randomBytes(32));
      const message = new Uint8Array(randomBytes(i * 7));
      const reference = ed25519NoteSigner("queue.example.test/agentq", seed);
      expect(Buffer.from(nativeEd25519Signer(seed)(message)).toString("hex")).toBe(Buffer.from(reference.sign(message)).toString("hex"));
    }
  });

  it("is the one deriveSecrets hands out, for the log seed it derives", () => {
    const secrets = deriveSecrets("a".repeat(64));
    const message = new TextEncoder().encode("queue.example.test/agentq/01J\n3\nroot\n");
    expect(secrets.logSign).toBeDefined();
    expect(secrets.logSign?.(message)).toEqual(ed25519NoteSigner("queue.example.test/agentq", secrets.logSeed).sign(message));
  });
});

describe("the native token hash", () => {
  it("gives the core's hashToken, for any pepper and token (non-ASCII included)", () => {
    for (let i = 0; i < 50; i++) {
      const pepper = new Uint8Array(randomBytes(32));
      const token = `aq_op_${randomBytes(i).toString("base64url")}${i % 5 === 0 ? "é☃" : ""}`;
      expect(nativeTokenHash(pepper)(token)).toBe(hashToken(pepper, token));
    }
    const secrets = deriveSecrets("b".repeat(64));
    expect(secrets.tokenHash?.("aq_op_x")).toBe(hashToken(secrets.pepper, "aq_op_x"));
  });
});
