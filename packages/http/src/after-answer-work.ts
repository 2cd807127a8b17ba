import { isDomainError } from "@agentq/core";

/** What a task after an answer is, for the log when it fails: its name and the request it followed. */
export interface AfterAnswerLabel {
  /** The task's name (`password_reset`, `sign_up`). */
  what: string;
  /** The request whose answer it followed. */
  requestId: string | null;
}

/**
 * Work an edge does after its answer, so the answer does not wait for it (a password reset's or
 * a sign-up's lookup, token and mail: DESIGN §2c). Each task starts on a later turn of the event
 * loop, never holds up the response, and never fails silently: a rejection goes to `onError`
 * (the log). `settled()` resolves once every task started so far (and any they start) has
 * finished; the server awaits it when it stops, and tests await it instead of sleeping.
 */
export interface AfterAnswerWork {
  /** Runs `task` after the current answer; `label` names it in the log when it fails. */
  run(label: AfterAnswerLabel, task: () => Promise<unknown>): void;
  /** Resolves when no task is pending or running. */
  settled(): Promise<void>;
}

/**
 * The after-answer work of one process.
 * @param onError told of each task's failure with the task's label (log it; never rethrow).
 */
export function createAfterAnswerWork(onError: (error: unknown, label: AfterAnswerLabel) => void): AfterAnswerWork {
  const inFlight = new Set<Promise<void>>();
  return {
    run(label, task) {
      const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(task)
        .then(
          () => undefined,
          (error: unknown) => onError(error, label),
        )
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    },
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}

/**
 * The reason of a failure, for the log, never its message (it may carry an address): the SMTP
 * reply code or the transport's error code behind a mail failure, else the error's code or class.
 */
export function failureReason(error: unknown): string {
  const cause = isDomainError(error) ? (error.cause as { code?: unknown; responseCode?: unknown } | undefined) : undefined;
  if (typeof cause?.responseCode === "number") return `smtp_${cause.responseCode}`;
  if (typeof cause?.code === "string") return cause.code;
  if (isDomainError(error)) return error.code;
  return error instanceof Error ? error.name : "unknown";
}

/**
 * After-answer work whose failures are logged to `logger`: one line with the task's name, the
 * request id and the reason (`failureReason`), never the address, the text or a token.
 */
export function afterAnswerWorkLoggedTo(logger: { error(fields: Record<string, unknown>, message: string): void }): AfterAnswerWork {
  return createAfterAnswerWork((error, label) => logger.error({ request_id: label.requestId, work: label.what, reason: failureReason(error) }, "work after the answer failed"));
}
