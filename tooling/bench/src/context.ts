import type postgres from "postgres";
import type { BenchFixture } from "./fixture.ts";
import type { Log } from "./load.ts";
import type { BenchDatabase } from "./postgres-target.ts";
import type { ServerProcess } from "./server-process.ts";

/** How big each scenario is: `--quick` shrinks every count and duration. */
export interface Sizes {
  /** Duration of each fixed-concurrency load (L1 insert, S1 send, pg-boss send, S4 MCP). */
  levelMs: number;
  /** Messages pre-loaded for each drain (L1, S2, S2 batch, pg-boss x2). */
  drainCount: number;
  /** Upper bound of one drain (a drain cut short reports its rate over what it did, with a note). */
  drainMaxMs: number;
  /** S3: sends while the long polls wait, and the gap between two sends. */
  wakeSends: number;
  wakeGapMs: number;
  /** pgbench duration in seconds. */
  pgbenchSeconds: number;
}

export const FULL: Sizes = { levelMs: 10_000, drainCount: 100_000, drainMaxMs: 3 * 60_000, wakeSends: 400, wakeGapMs: 40, pgbenchSeconds: 10 };
// AGENTQ_BENCH_LEVEL_MS: a quick run's level length (3 s), longer for a profile of one level.
export const QUICK: Sizes = { levelMs: Number(process.env.AGENTQ_BENCH_LEVEL_MS ?? 3_000), drainCount: 3_000, drainMaxMs: 60_000, wakeSends: 100, wakeGapMs: 40, pgbenchSeconds: 3 };

/** What every scenario works with. */
export interface BenchContext {
  db: BenchDatabase;
  /** A pool on the run's database (for pre-loading and raw SQL). */
  sql: postgres.Sql;
  server: ServerProcess;
  fixture: BenchFixture;
  sizes: Sizes;
  log: Log;
  /** Raw measurements by figure id. */
  m: Map<string, number>;
  notes: string[];
}
