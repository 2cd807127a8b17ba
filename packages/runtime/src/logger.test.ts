import type { ServedRequest } from "@agentq/http";
import { describe, expect, it } from "vitest";
import { accessLogTo } from "./run-service.ts";
import { createAccessLogger, createLogger, LOG_REDACT_PATHS } from "./logger.ts";

/** Every field an access-log line can carry (Required: a new field must be added here to compile). */
const FULL_ENTRY: Required<ServedRequest> = {
  method: "POST",
  route: "/v1/messages",
  path: "/v1/nowhere",
  status: 201,
  duration_ms: 1.5,
  request_id: "req_1",
  workspace_id: "ws_1",
  ai_account_id: "acc_1",
  credential_id: "cred_1",
};

function linesOf(make: (destination: { write(line: string): void }) => void): Record<string, unknown>[] {
  const lines: string[] = [];
  make({ write: (line) => void lines.push(line) });
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("the access-log line's logger (no redaction pass)", () => {
  it("carries no key the redaction list names, so skipping the pass hides nothing", () => {
    const names = new Set(LOG_REDACT_PATHS.map((path) => path.split(".").at(-1)));
    for (const key of Object.keys(FULL_ENTRY)) expect(names.has(key), key).toBe(false);
  });

  it("writes the same line as the redacting logger would", () => {
    const [plain] = linesOf((d) => accessLogTo(createAccessLogger("info", d))(FULL_ENTRY));
    const [redacted] = linesOf((d) => accessLogTo(createLogger("info", d))(FULL_ENTRY));
    const { time: _t1, ...a } = plain ?? {};
    const { time: _t2, ...b } = redacted ?? {};
    expect(a).toEqual(b);
    expect(a).toMatchObject({ ...FULL_ENTRY, service: "agentq", msg: "request served" });
  });

  it("the general logger still censors the listed names", () => {
    const [line] = linesOf((d) => createLogger("info", d).info({ token: "aq_secret", nested: { password: "p" }, payload: { a: 1 } }, "x"));
    expect(line).toMatchObject({ token: "[redacted]", nested: { password: "[redacted]" }, payload: "[redacted]" });
  });
});
