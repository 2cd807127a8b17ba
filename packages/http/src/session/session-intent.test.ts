import { describe, expect, it } from "vitest";
import { sessionCookies } from "./session-cookie.ts";
import { sessionIntentCookies } from "./session-intent.ts";

// The one place a handler's session intent becomes cookies (issue 27): the stage's cookie set
// for its lifetime and the other cleared, or both cleared, or the OIDC attempt's cookie set.
describe("sessionIntentCookies", () => {
  const secure = sessionCookies("https://agentq.example");
  const plain = sessionCookies("http://agentq.example");

  it("starts a signed-in session: the session cookie for its lifetime, the pending-MFA cookie cleared", () => {
    expect(sessionIntentCookies(secure, { kind: "start", stage: "active", token: "agq_se_x", maxAgeSeconds: 43_200 })).toEqual([
      "__Host-agentq_session=agq_se_x; Path=/; HttpOnly; SameSite=Lax; Max-Age=43200; Secure",
      "__Host-agentq_mfa=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure",
    ]);
  });

  it("starts a sign-in awaiting its second factor: the pending-MFA cookie, the session cookie cleared", () => {
    expect(sessionIntentCookies(plain, { kind: "start", stage: "pending_mfa", token: "agq_se_y", maxAgeSeconds: 600.9 })).toEqual([
      "agentq_mfa=agq_se_y; Path=/; HttpOnly; SameSite=Lax; Max-Age=600",
      "agentq_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0",
    ]);
  });

  it("ends a session: both cookies cleared, or the session's alone", () => {
    expect(sessionIntentCookies(secure, { kind: "end" })).toEqual([
      "__Host-agentq_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure",
      "__Host-agentq_mfa=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure",
    ]);
    expect(sessionIntentCookies(secure, { kind: "end", keepPendingMfa: true })).toEqual(["__Host-agentq_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure"]);
  });

  it("begins an OIDC sign-in: the attempt's cookie alone, for its ten minutes", () => {
    expect(sessionIntentCookies(secure, { kind: "oidc_attempt", value: "sealed", maxAgeSeconds: 600 })).toEqual(["__Host-agentq_oidc=sealed; Path=/; HttpOnly; SameSite=Lax; Max-Age=600; Secure"]);
    expect(sessionIntentCookies(plain, { kind: "oidc_attempt", value: "sealed", maxAgeSeconds: 600 })).toEqual(["agentq_oidc=sealed; Path=/; HttpOnly; SameSite=Lax; Max-Age=600"]);
  });
});
