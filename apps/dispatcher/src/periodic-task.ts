/**
 * A named job that a background loop runs every `intervalMs`, never overlapping itself, and
 * also at once whenever its `wakeups` source says there is work (then `intervalMs` is only the
 * slow fallback poll).
 */
export interface PeriodicTask {
  name: string;
  intervalMs: number;
  /** Subscribes to "there is work now" signals (e.g. LISTEN/NOTIFY); returns the unsubscriber. */
  wakeups?: (wake: () => void) => () => Promise<void> | void;
  /** One pass; returns how much it did (for logs). Errors are caught and reported, and the task runs again next interval. */
  run(): Promise<number>;
}

/** What the loop reports about each pass; the composition root logs it. */
export interface PeriodicTaskObserver {
  onError(task: string, error: unknown): void;
  onWork?(task: string, count: number): void;
}

/**
 * Runs each task on its own timer until `stop()` resolves, and at once when its `wakeups` fire.
 * A pass that is still running when its next interval (or a wake-up) comes simply delays the
 * next pass (no overlap, no pile-up; a wake-up during a pass runs one more pass right after).
 * `stop()` unsubscribes and waits for passes in flight.
 */
export function startPeriodicTasks(tasks: readonly PeriodicTask[], observer: PeriodicTaskObserver): { stop(): Promise<void> } {
  let stopped = false;
  const inFlight = new Set<Promise<void>>();
  const unsubscribers: (() => Promise<void> | void)[] = [];

  const loop = (task: PeriodicTask) => {
    let timer: NodeJS.Timeout | null = null;
    let running = false;
    // A wake-up during a pass: run again right after it (the pass may have missed that work).
    let wokenWhileRunning = false;
    const run = () => {
      if (stopped) return;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      running = true;
      wokenWhileRunning = false;
      const pass = task
        .run()
        .then((count) => {
          if (count > 0) observer.onWork?.(task.name, count);
        })
        .catch((error: unknown) => observer.onError(task.name, error))
        .finally(() => {
          inFlight.delete(pass);
          running = false;
          schedule(wokenWhileRunning ? 0 : task.intervalMs);
        });
      inFlight.add(pass);
    };
    const schedule = (ms: number) => {
      if (stopped) return;
      timer = setTimeout(run, ms);
      timer.unref();
    };
    const wake = () => {
      if (stopped) return;
      if (running) wokenWhileRunning = true;
      else run();
    };
    if (task.wakeups) unsubscribers.push(task.wakeups(wake));
    schedule(task.intervalMs);
    return () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
    };
  };
  const cancels = tasks.map(loop);

  return {
    async stop() {
      stopped = true;
      for (const cancel of cancels) cancel();
      await Promise.all(unsubscribers.map(async (u) => u()));
      await Promise.all([...inFlight]);
    },
  };
}
