import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TEST_SECRETS } from "../testing/create-in-memory-deps.ts";
import { OIDC_ATTEMPT_LIFETIME_MS, openOidcAttempt, sealOidcAttempt } from "./oidc-attempt-cookie.ts";
import { parseReturnTo } from "./return-to.ts";

const base = "https://queue.example.com";

describe("parseReturnTo", () => {
  it.each([
    [undefined, "/"],
    ["", "/"],
    ["/", "/"],
    ["/messages?state=held#top", "/messages?state=held#top"],
    ["https://queue.example.com/settings", "/settings"],
    ["https://queue.example.com", "/"],
  ])("keeps %s as %s", (value, path) => {
    expect(parseReturnTo(value, base)).toBe(path);
  });

  it.each([
    ["another origin", "https://evil.example"],
    ["a scheme-relative URL", "//evil.example/x"],
    ["a backslash path", "/\\evil.example"],
    ["another scheme of the host", "http://queue.example.com/"],
    ["a script URL", "javascript:alert(1)"],
    ["a relative path", "messages"],
    ["a line break", "/a\nb"],
    ["2,049 characters", `/${"a".repeat(2048)}`],
  ])("refuses %s with SVC_MALFORMED_REQUEST", (_, value) => {
    expect(() => parseReturnTo(value, base)).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST", details: { field: "return_to" } }) as Error);
  });

  it("never returns anything but a path of the service, whatever it is given", () => {
    fc.assert(
      fc.property(fc.oneof(
          fc.string(),
          fc.tuple(fc.constantFrom("https://", "http://", "//", "/", "\\", "javascript:", ""), fc.constantFrom("queue.example.com", "evil.example", "queue.example.com.evil", "queue.example.com@evil.example", "", "/"), fc.string()).map(([a, b, c]) => a + b + c),
        ), (value) => {
        let path: string;
        try {
          path = parseReturnTo(value, base);
        } catch (error) {
          expect((error as { code?: string }).code).toBe("SVC_MALFORMED_REQUEST");
          return;
        }
        expect(path.startsWith("/")).toBe(true);
        expect(path.startsWith("//")).toBe(false);
        expect(new URL(path, base).origin).toBe(base);
      }),
      { numRuns: 300 },
    );
  });
});

describe("the OIDC attempt cookie", () => {
  const now = new Date("2026-11-24T10:00:00Z");
  const sealed = { attempt: { state: "st", nonce: "no", codeVerifier: "ve" }, returnTo: "/x", startedAt: now, linkFor: null };

  it("opens what it sealed until the attempt is ten minutes old", () => {
    const value = sealOidcAttempt(TEST_SECRETS, sealed);
    expect(value).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(openOidcAttempt(TEST_SECRETS, value, now)).toEqual(sealed);
    expect(openOidcAttempt(TEST_SECRETS, value, new Date(now.getTime() + OIDC_ATTEMPT_LIFETIME_MS))).toEqual(sealed);
    expect(openOidcAttempt(TEST_SECRETS, value, new Date(now.getTime() + OIDC_ATTEMPT_LIFETIME_MS + 1))).toBeNull();
  });

  it("keeps the person a linking attempt is for, and tells it from a sign-in's", () => {
    const linking = { ...sealed, linkFor: { workspaceId: "w1", personId: "p1" } };
    const value = sealOidcAttempt(TEST_SECRETS, linking);
    expect(openOidcAttempt(TEST_SECRETS, value, now)).toEqual(linking);
    expect(openOidcAttempt(TEST_SECRETS, sealOidcAttempt(TEST_SECRETS, sealed), now)?.linkFor).toBeNull();
  });

  it("opens nothing changed, sealed under another key, or malformed", () => {
    const value = sealOidcAttempt(TEST_SECRETS, sealed);
    const [body = "", tag = ""] = value.split(".");
    const other = sealOidcAttempt({ pepper: new TextEncoder().encode("another-pepper-0123456789abcdef") }, sealed);
    for (const bad of [undefined, "", ".", body, `${body}.`, `${body}x.${tag}`, `${body}.${tag.slice(1)}`, other, `${sealOidcAttempt(TEST_SECRETS, { ...sealed, returnTo: "/y" }).split(".")[0]}.${tag}`]) {
      expect(openOidcAttempt(TEST_SECRETS, bad, now)).toBeNull();
    }
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(openOidcAttempt(TEST_SECRETS, s, now)).toBeNull();
      }),
    );
  });
});
