import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { ManualClock } from "../testing/manual-clock.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { parsePageLimit } from "./page-limit.ts";

const clock = new ManualClock();
const deps = { secrets: { cursorKey: new TextEncoder().encode("k".repeat(32)) }, clock };
const scope = { resource: "messages", workspaceId: "W1", filters: { role: "any", state: null } };
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return isDomainError(e) ? e.code : "not a DomainError";
  }
  return "no error";
};

describe("cursors", () => {
  it("round-trips the position; null or empty means the first page", () => {
    const c = encodeCursor(deps, scope, "01POSITION");
    expect(c).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(deps, scope, c)).toBe("01POSITION");
    expect(decodeCursor(deps, { ...scope, filters: { state: null, role: "any" } }, c)).toBe("01POSITION");
    expect(decodeCursor(deps, scope, null)).toBeNull();
    expect(decodeCursor(deps, scope, "")).toBeNull();
  });

  it("refuses tampered, foreign and stale cursors with SVC_CURSOR_EXPIRED", () => {
    const c = encodeCursor(deps, scope, "P");
    const [body, mac] = c.split(".") as [string, string];
    const forgedBody = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), p: "Q" })).toString("base64url");
    expect(code(() => decodeCursor(deps, scope, `${forgedBody}.${mac}`))).toBe("SVC_CURSOR_EXPIRED");
    expect(code(() => decodeCursor(deps, scope, `${body}.${mac.slice(1)}`))).toBe("SVC_CURSOR_EXPIRED");
    expect(code(() => decodeCursor(deps, scope, "garbage"))).toBe("SVC_CURSOR_EXPIRED");
    expect(code(() => decodeCursor(deps, scope, "a.b.c!"))).toBe("SVC_CURSOR_EXPIRED");
    expect(code(() => decodeCursor(deps, { ...scope, resource: "recipients" }, c))).toBe("SVC_CURSOR_EXPIRED");
    expect(code(() => decodeCursor(deps, { ...scope, workspaceId: "W2" }, c))).toBe("SVC_CURSOR_EXPIRED");
    expect(code(() => decodeCursor(deps, { ...scope, filters: { role: "sent", state: null } }, c))).toBe("SVC_CURSOR_EXPIRED");
    expect(code(() => decodeCursor({ ...deps, secrets: { cursorKey: new Uint8Array(32) } }, scope, c))).toBe("SVC_CURSOR_EXPIRED");
    clock.advance(24 * 3600_000);
    expect(decodeCursor(deps, scope, c)).toBe("P");
    clock.advance(1);
    expect(code(() => decodeCursor(deps, scope, c))).toBe("SVC_CURSOR_EXPIRED");
  });
});

describe("parsePageLimit", () => {
  it("defaults to 50, clamps to 1..100, accepts integer strings", () => {
    expect(parsePageLimit(undefined)).toBe(50);
    expect(parsePageLimit(null)).toBe(50);
    expect(parsePageLimit(7)).toBe(7);
    expect(parsePageLimit("7")).toBe(7);
    expect(parsePageLimit(0)).toBe(1);
    expect(parsePageLimit(-5)).toBe(1);
    expect(parsePageLimit("1000")).toBe(100);
  });

  it.each([1.5, "1.5", "ten", "", " ", "1e3", true, {}, Number.NaN])("refuses %j with SVC_MALFORMED_REQUEST (except the empty string: default)", (v) => {
    if (v === "") return expect(parsePageLimit(v)).toBe(50);
    expect(code(() => parsePageLimit(v))).toBe("SVC_MALFORMED_REQUEST");
  });
});
