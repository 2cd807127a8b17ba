import { DomainError } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { afterAnswerWorkLoggedTo } from "./after-answer-work.ts";

// The work a sign-up or a password reset does after its answer (DESIGN §2c): never before the
// caller's turn ends, awaited by settled(), and logged with its label and a reason when it fails.

describe("after-answer work", () => {
  it("starts each task after the current turn, settles when every task has ended, and logs a failure with its name, request id and reason only", async () => {
    const lines: Record<string, unknown>[] = [];
    const work = afterAnswerWorkLoggedTo({ error: (fields) => lines.push(fields) });
    const ran: string[] = [];
    work.run({ what: "sign_up", requestId: "r1" }, async () => {
      ran.push("sign_up");
    });
    const smtpFailure = new DomainError("SVC_SERVICE_UNAVAILABLE", "The mail to ada@example.test could not be handed over.", undefined, { cause: { responseCode: 451 } });
    work.run({ what: "password_reset", requestId: "r2" }, () => Promise.reject(smtpFailure));
    expect(ran).toEqual([]);
    await work.settled();
    expect(ran).toEqual(["sign_up"]);
    expect(lines).toEqual([{ request_id: "r2", work: "password_reset", reason: "smtp_451" }]);
    expect(JSON.stringify(lines)).not.toContain("ada@example.test");
  });
});
