import { describe, expect, it } from "vitest";
import { assertJsonDepth } from "./json-depth.ts";

function nested(depth: number): string {
  return `${"[".repeat(depth - 1)}{}${"]".repeat(depth - 1)}`;
}

function codeOf(fn: () => void): string | null {
  try {
    fn();
    return null;
  } catch (e) {
    return (e as { code: string }).code;
  }
}

describe("assertJsonDepth", () => {
  it("accepts 64 levels and refuses 65", () => {
    expect(codeOf(() => assertJsonDepth(nested(64), 64))).toBeNull();
    expect(codeOf(() => assertJsonDepth(nested(65), 64))).toBe("SVC_MALFORMED_REQUEST");
  });

  it("counts objects and arrays alike, siblings not at all", () => {
    expect(codeOf(() => assertJsonDepth('{"a":{"b":{}}}', 3))).toBeNull();
    expect(codeOf(() => assertJsonDepth('{"a":{"b":{}}}', 2))).toBe("SVC_MALFORMED_REQUEST");
    expect(codeOf(() => assertJsonDepth(`[${"[],".repeat(1000)}[]]`, 2))).toBeNull();
  });

  it("ignores brackets inside strings, escaped quotes included", () => {
    expect(codeOf(() => assertJsonDepth(JSON.stringify({ s: "[[[[{{{{" }), 1))).toBeNull();
    expect(codeOf(() => assertJsonDepth(JSON.stringify({ s: 'a\\"[[[[\\' }), 1))).toBeNull();
    expect(codeOf(() => assertJsonDepth('{"s":"\\"","t":[[1]]}', 2))).toBe("SVC_MALFORMED_REQUEST");
  });

  it("scans a million levels without a stack overflow", () => {
    expect(codeOf(() => assertJsonDepth("[".repeat(1_000_000), 64))).toBe("SVC_MALFORMED_REQUEST");
  });
});
