import { randomBytes } from "node:crypto";
import { auditLogKeys, ed25519NoteSigner, hashToken, openNote, parseVerifierKey, signNote, type NoteVerifier } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { deriveSecrets, NATIVE_CRYPTO } from "./secrets.ts";

// The runtime hands the core node:crypto's Ed25519 and HMAC (secrets.native); the core's own
// @noble code is the reference: Ed25519 is deterministic, so the bytes must be equal.

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("the runtime's native cryptography", () => {
  it("signs exactly as the core's @noble/curves signer, for any seed and message", () => {
    for (let i = 0; i < 50; i++) {
      const seed = new Uint8Array(randomBytes(32));
      const message = new Uint8Array(randomBytes(i * 7));
      const reference = ed25519NoteSigner("queue.example.test/agentq", seed);
      expect(hex(NATIVE_CRYPTO.ed25519Sign(seed, message))).toBe(hex(reference.sign(message)));
      expect(hex(ed25519NoteSigner("queue.example.test/agentq", seed, NATIVE_CRYPTO).sign(message))).toBe(hex(reference.sign(message)));
    }
  });

  it("hashes tokens as the core's hashToken, for any pepper and token (non-ASCII included)", () => {
    for (let i = 0; i < 50; i++) {
      const pepper = new Uint8Array(randomBytes(32));
      const token = `aq_op_${randomBytes(i).toString("base64url")}${i % 5 === 0 ? "é☃" : ""}`;
      expect(hashToken(pepper, token, NATIVE_CRYPTO)).toBe(hashToken(pepper, token));
    }
  });

  it("is what deriveSecrets hands out, and stays right in a copy of the secrets with another log key", () => {
    const publicBaseUrl = "https://queue.example.test";
    const before = deriveSecrets("a".repeat(64));
    const after = { ...before, logSeed: deriveSecrets("b".repeat(64)).logSeed };
    expect(before.native).toBe(NATIVE_CRYPTO);
    for (const secrets of [before, after]) {
      const { signer, verifierKeys } = auditLogKeys({ secrets, publicBaseUrl });
      const note = signNote("queue.example.test/agentq/w\n1\nAAAA\n", [signer]);
      const verifiers = verifierKeys.map(parseVerifierKey).filter((v): v is NoteVerifier => v !== null);
      expect(openNote(note, verifiers).kind).toBe("verified");
      expect(signer.verifierKey).toBe(ed25519NoteSigner(signer.name, secrets.logSeed).verifierKey);
    }
  });
});
