import { isDomainError } from "@agentq/core";
import { createAfterAnswerWork, type AfterAnswerWork } from "@agentq/http";
import type { RestLogger } from "./logger.ts";

/**
 * After-answer work whose failures are logged to `logger` with the task's name and a reason (the
 * error's code or class, never its message: it may carry an address).
 */
export function afterAnswerWorkLoggedTo(logger: RestLogger): AfterAnswerWork {
  return createAfterAnswerWork((error, what) => logger.error({ work: what, reason: isDomainError(error) ? error.code : error instanceof Error ? error.name : "unknown" }, "work after the answer failed"));
}
