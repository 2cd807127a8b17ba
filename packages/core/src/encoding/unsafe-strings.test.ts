import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { assertSafeStrings, findUnsafeStrings } from "./unsafe-strings.ts";

describe("findUnsafeStrings", () => {
  it("finds U+0000 and lone surrogates by JSON pointer, in values and in keys, at any depth", () => {
    const value = { a: "ok", b: ["fine", "x\u0000"], c: { "d/e~f": "\ud800", g: "\udc00y" }, [`k\u0000`]: 1 };
    expect(findUnsafeStrings(value).map((f) => f.path).sort()).toEqual(["/", "/b/1", "/c/d~1e~0f", "/c/g"]);
    expect(findUnsafeStrings("\u0000")).toEqual([{ path: "/", message: expect.any(String) as string }]);
  });

  it("accepts surrogate pairs, other control characters and non-string values", () => {
    expect(findUnsafeStrings({ emoji: "😀 \ud83d\ude00", tab: "\t\u0001\u007f", n: 1, t: true, z: null, list: [[], {}] })).toEqual([]);
  });

  it("stops at the limit and survives nesting far deeper than any request", () => {
    expect(findUnsafeStrings(Array.from({ length: 50 }, () => "\u0000"), 10)).toHaveLength(10);
    let deep: unknown = "\u0000";
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findUnsafeStrings(deep)).toHaveLength(1);
  });

  it("agrees with the definition on any string: refused exactly when it has U+0000 or is not well-formed UTF-16", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "a"), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))) }), (s) => {
        const wellFormed = (s as string & { isWellFormed(): boolean }).isWellFormed();
        expect(findUnsafeStrings(s).length === 1).toBe(s.includes("\u0000") || !wellFormed);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("assertSafeStrings", () => {
  it("throws SVC_MALFORMED_REQUEST with details.errors[].path", () => {
    const thrown = (() => {
      try {
        assertSafeStrings({ title: "x\u0000" });
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(isDomainError(thrown) && thrown.code).toBe("SVC_MALFORMED_REQUEST");
    expect(isDomainError(thrown) && thrown.details).toEqual({ errors: [{ path: "/title", message: expect.any(String) as string }] });
    expect(() => assertSafeStrings({ title: "fine" })).not.toThrow();
  });
});
