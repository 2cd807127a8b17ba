import type { FaultKind, FaultRecord } from "./history.ts";
import type { PgControl } from "./pg-control.ts";
import type { Random } from "./random.ts";
import type { ServerSlot } from "./server-fleet.ts";
import type { TcpProxy } from "./tcp-proxy.ts";

/** How many faults of each planned kind a run injects. */
export type FaultPlan = Record<Exclude<FaultKind, "server_crash">, number>;

/** The default plan for a workload of `minutes`: 5 kills and 1.2 PostgreSQL restarts a minute, and the rest. */
export function defaultFaultPlan(minutes: number): FaultPlan {
  const pgRestarts = Math.max(2, Math.ceil(1.2 * minutes));
  return {
    server_kill: Math.max(1, Math.ceil(5 * minutes)),
    server_pause: Math.ceil(2 * minutes),
    pg_restart_fast: Math.ceil(pgRestarts / 2),
    pg_restart_immediate: Math.floor(pgRestarts / 2),
    pg_terminate_backends: Math.ceil(1.5 * minutes),
    proxy_latency: Math.ceil(2 * minutes),
    proxy_blackhole: Math.ceil(1.5 * minutes),
  };
}

/** One planned fault: its kind and when (ms after the start of the fault window) it is due. */
export interface PlannedFault {
  kind: Exclude<FaultKind, "server_crash">;
  dueMs: number;
}

/**
 * The seeded schedule: the plan's faults shuffled into evenly spaced, jittered slots over the
 * window. Kinds in `leadWith` (each taken from the plan) go first, in that order, so a short run
 * on a slow machine cannot lose them to earlier faults that ran long.
 */
export function scheduleFaults(plan: FaultPlan, windowMs: number, random: Random, leadWith: readonly PlannedFault["kind"][] = []): PlannedFault[] {
  const remaining: FaultPlan = { ...plan };
  const lead: PlannedFault["kind"][] = [];
  for (const kind of leadWith) {
    if (remaining[kind] <= 0) continue;
    remaining[kind] -= 1;
    lead.push(kind);
  }
  const kinds = [...lead, ...random.shuffle(Object.entries(remaining).flatMap(([kind, n]) => Array.from({ length: n }, () => kind as PlannedFault["kind"])))];
  const slot = windowMs / Math.max(1, kinds.length);
  return kinds.map((kind, i) => ({ kind, dueMs: Math.max(0, Math.round(i * slot + random.next() * slot * 0.5)) }));
}

/** What the fault injector acts on. */
export interface FaultTargets {
  servers: readonly ServerSlot[];
  pg: PgControl;
  proxy: TcpProxy;
  /** pg_terminate_backend of every server connection; resolves with how many were terminated. */
  terminateServerBackends(): Promise<number>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs the schedule one fault at a time (each one undone before the next: a killed server is
 * restarted, PostgreSQL is started again, the proxy passes again), starting at `startAt`, and
 * stops starting faults at `until`. Records each fault in `faults` as it begins.
 */
export async function injectFaults(schedule: readonly PlannedFault[], targets: FaultTargets, random: Random, startAt: number, until: number, faults: FaultRecord[], log: (text: string) => void): Promise<{ skipped: number }> {
  let skipped = 0;
  const restarting = new Map<ServerSlot, Promise<void>>();
  try {
    return await runSchedule();
  } finally {
    await Promise.allSettled(restarting.values());
  }

  async function runSchedule(): Promise<{ skipped: number }> {
    for (const [index, planned] of schedule.entries()) {
      const due = startAt + planned.dueMs;
      if (due > Date.now()) await sleep(due - Date.now());
      if (Date.now() >= until) {
        skipped = schedule.length - index;
        break;
      }
      const at = Date.now();
      const record = (target: string, durationMs: number) => faults.push({ kind: planned.kind, target, at, durationMs });
      switch (planned.kind) {
        case "server_kill": {
          // The restart runs in the background (a start takes seconds on a loaded machine), so
          // other faults go on meanwhile; a slot being restarted is not killed again.
          // A listening server is killed; preferably while another one serves (waiting a little
          // for that), so the service is not down more than the kills make it.
          const candidates = () => targets.servers.filter((s) => s.ready() && !restarting.has(s));
          const othersServe = (s: ServerSlot) => targets.servers.some((o) => o !== s && o.ready());
          for (let waited = 0; waited < 15_000 && !candidates().some(othersServe); waited += 100) await sleep(100);
          for (let waited = 0; waited < 30_000 && candidates().length === 0; waited += 100) await sleep(100);
          const ready = candidates();
          if (ready.length === 0) break;
          const preferred = ready.filter(othersServe);
          const slot = random.pick(preferred.length > 0 ? preferred : ready);
          const downMs = random.int(200, 1_500);
          record(slot.name, downMs);
          await slot.kill();
          const restart = sleep(downMs).then(() => startWithRetries(slot, log));
          restarting.set(slot, restart);
          void restart.catch(() => undefined).finally(() => restarting.delete(slot));
          break;
        }
        case "server_pause": {
          const slot = random.pick(targets.servers);
          const ms = random.int(1_000, 6_000);
          record(slot.name, ms);
          await slot.pause(ms);
          break;
        }
        case "pg_restart_fast":
        case "pg_restart_immediate": {
          const downMs = random.int(300, 2_000);
          record("postgres", downMs);
          const stopping = Date.now();
          const ended = await targets.pg.stop(planned.kind === "pg_restart_fast" ? "fast" : "immediate");
          const stoppedIn = Date.now() - stopping;
          const last = faults.at(-1);
          if (ended !== "fast" && ended !== "immediate" && last) last.target = `postgres (shutdown ${ended})`;
          await sleep(downMs);
          const starting = Date.now();
          await targets.pg.start();
          targets.proxy.setTarget(targets.pg.port());
          log(`postgres stopped (${ended}) in ${stoppedIn} ms, started in ${Date.now() - starting} ms (port ${targets.pg.port()})`);
          break;
        }
        case "pg_terminate_backends": {
          const n = await targets.terminateServerBackends().catch(() => 0);
          record(`${n} connections`, 0);
          break;
        }
        case "proxy_latency": {
          const ms = random.int(2_000, 6_000);
          const latency = random.int(50, 400);
          record(`${latency} ms`, ms);
          targets.proxy.setMode({ kind: "latency", ms: latency });
          await sleep(ms);
          targets.proxy.setMode({ kind: "pass" });
          break;
        }
        case "proxy_blackhole": {
          const ms = random.int(1_000, 6_000);
          const reset = random.chance(0.5);
          record(reset ? "then reset" : "then heal", ms);
          targets.proxy.setMode({ kind: "blackhole" });
          await sleep(ms);
          if (reset) targets.proxy.resetAll();
          targets.proxy.setMode({ kind: "pass" });
          break;
        }
      }
      const mine = faults.findLast((f) => f.kind === planned.kind);
      log(`fault ${planned.kind} ${mine?.target ?? ""}${mine?.durationMs ? ` (${mine.durationMs} ms)` : ""}`);
    }
    return { skipped };
  }
}

/** Starts a slot, trying again (a restart can race a PostgreSQL that is still coming back). */
export async function startWithRetries(slot: ServerSlot, log: (text: string) => void): Promise<void> {
  if (slot.running()) return;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      await slot.start();
      log(`server ${slot.name} up after ${Date.now() - started} ms`);
      return;
    } catch (e) {
      if (attempt >= 10) throw e;
      log(`server ${slot.name} failed to start (attempt ${attempt}): ${(e as Error).message.split("\n")[0]}`);
      await sleep(1_000);
    }
  }
}
