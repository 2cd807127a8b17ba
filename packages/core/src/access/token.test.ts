import { describe, expect, it } from "vitest";
import { constantTimeEqual, hashToken, isWellFormedToken, newTokenSeal, tokenFromSeal } from "./token.ts";

const pepper = new TextEncoder().encode("pepper-for-token-tests-0123456789");

describe("tokens", () => {
  it("carry the tier prefix and 256 bits in base64url, different every time", () => {
    const op = tokenFromSeal(pepper, "operational", newTokenSeal());
    const ad = tokenFromSeal(pepper, "administrative", newTokenSeal());
    expect(op).toMatch(/^agq_op_[A-Za-z0-9_-]{43}$/);
    expect(ad).toMatch(/^agq_ad_[A-Za-z0-9_-]{43}$/);
    const many = new Set(Array.from({ length: 200 }, () => tokenFromSeal(pepper, "operational", newTokenSeal())));
    expect(many.size).toBe(200);
    expect(isWellFormedToken(op) && isWellFormedToken(ad)).toBe(true);
    for (const bad of ["", "agq_op_", `${op}x`, op.slice(0, -1), `agq_xx_${op.slice(7)}`, `${op.slice(0, -1)}=`]) expect(isWellFormedToken(bad)).toBe(false);
  });

  it("derive deterministically from seal and pepper, and depend on both", () => {
    const seal = newTokenSeal();
    expect(tokenFromSeal(pepper, "operational", seal)).toBe(tokenFromSeal(pepper, "operational", seal));
    expect(tokenFromSeal(new Uint8Array(32), "operational", seal)).not.toBe(tokenFromSeal(pepper, "operational", seal));
    expect(tokenFromSeal(pepper, "operational", seal).slice(7)).not.toContain(seal);
  });

  it("hash with HMAC-SHA-256 under the pepper, hex", () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    expect(hashToken(new TextEncoder().encode("Jefe"), "what do ya want for nothing?")).toBe("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  });

  it("compare equal strings only", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});
