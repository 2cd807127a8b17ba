import { describe, expect, it } from "vitest";
import { isJsonContentType } from "./content-type.ts";
import { parseContentEncoding } from "./content-encoding.ts";

describe("isJsonContentType", () => {
  it("accepts application/json with or without a utf-8 charset, any case", () => {
    for (const ok of ["application/json", "Application/JSON", "application/json; charset=utf-8", 'application/json;charset="UTF-8"', "application/json; foo=bar"]) {
      expect(isJsonContentType(ok)).toBe(true);
    }
  });

  it("refuses other types and other charsets", () => {
    for (const bad of ["text/plain", "application/json-patch+json", "application/jsonx", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""]) {
      expect(isJsonContentType(bad)).toBe(false);
    }
  });
});

describe("parseContentEncoding", () => {
  it("knows identity, gzip, deflate and br and refuses the rest with 415", () => {
    expect(parseContentEncoding(null)).toBe("identity");
    expect(parseContentEncoding("identity")).toBe("identity");
    expect(parseContentEncoding("GZIP")).toBe("gzip");
    expect(parseContentEncoding("deflate")).toBe("deflate");
    expect(parseContentEncoding(" br ")).toBe("br");
    for (const bad of ["compress", "zstd", "gzip, br", "x-unknown"]) {
      expect(() => parseContentEncoding(bad)).toThrow(expect.objectContaining({ code: "SVC_UNSUPPORTED_CONTENT_TYPE" }) as Error);
    }
  });
});
