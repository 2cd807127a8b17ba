/** A named job that a background loop runs every `intervalMs`, never overlapping itself. */
export interface PeriodicTask {
  name: string;
  intervalMs: number;
  /** One pass; returns how much it did (for logs). Errors are caught and reported, and the task runs again next interval. */
  run(): Promise<number>;
}

/** What the loop reports about each pass; the composition root logs it. */
export interface PeriodicTaskObserver {
  onError(task: string, error: unknown): void;
  onWork?(task: string, count: number): void;
}

/**
 * Runs each task on its own timer until `stop()` resolves. A pass that is still running when its
 * next interval comes simply delays the next pass (no overlap, no pile-up). `stop()` waits for
 * passes in flight.
 */
export function startPeriodicTasks(tasks: readonly PeriodicTask[], observer: PeriodicTaskObserver): { stop(): Promise<void> } {
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();

  const schedule = (task: PeriodicTask) => {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const pass = task
        .run()
        .then((count) => {
          if (count > 0) observer.onWork?.(task.name, count);
        })
        .catch((error: unknown) => observer.onError(task.name, error))
        .finally(() => {
          inFlight.delete(pass);
          schedule(task);
        });
      inFlight.add(pass);
    }, task.intervalMs);
    timer.unref();
    timers.add(timer);
  };
  for (const task of tasks) schedule(task);

  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.all([...inFlight]);
    },
  };
}
