import { describe, expect, it } from "vitest";
import { formatTraceparent, parseTraceparent, validTraceparent } from "./traceparent.ts";

describe("traceparent (W3C Trace Context)", () => {
  const good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  it("reads a version-00 traceparent and writes it back the same", () => {
    expect(parseTraceparent(good)).toEqual({ traceId: "4bf92f3577b34da6a3ce929d0e0e4736", spanId: "00f067aa0ba902b7", flags: 1 });
    expect(formatTraceparent(parseTraceparent(good) as NonNullable<ReturnType<typeof parseTraceparent>>)).toBe(good);
    expect(validTraceparent(good.toUpperCase().replace("0X", "0x"))).toBe(good);
  });

  it("ignores anything else: other versions, zero ids, wrong lengths, non-strings, huge input", () => {
    for (const bad of [
      "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
      `${good}-extra`,
      "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
      "x".repeat(1_000_000),
      42,
      null,
      undefined,
    ]) {
      expect(validTraceparent(bad)).toBeNull();
    }
  });
});
