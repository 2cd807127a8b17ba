/**
 * Work an edge does after its answer, so the answer does not wait for it (a password reset's
 * lookup, token and mail: DESIGN §2c). Each task starts on a later turn of the event loop, never
 * holds up the response, and never fails silently: a rejection goes to `onError` (the log).
 * `settled()` resolves once every task started so far (and any they start) has finished; the
 * server awaits it when it stops, and tests await it instead of sleeping.
 */
export interface AfterAnswerWork {
  /** Runs `task` after the current answer; `what` names it in the log when it fails. */
  run(what: string, task: () => Promise<unknown>): void;
  /** Resolves when no task is pending or running. */
  settled(): Promise<void>;
}

/**
 * The after-answer work of one process.
 * @param onError told of each task's failure with the task's name (log it; never rethrow).
 */
export function createAfterAnswerWork(onError: (error: unknown, what: string) => void): AfterAnswerWork {
  const inFlight = new Set<Promise<void>>();
  return {
    run(what, task) {
      const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(task)
        .then(
          () => undefined,
          (error: unknown) => onError(error, what),
        )
        .finally(() => inFlight.delete(done));
      inFlight.add(done);
    },
    async settled() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
  };
}
