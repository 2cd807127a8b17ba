import PgBoss from "pg-boss";
import type { BenchContext } from "./context.ts";
import { PAYLOAD } from "./fixture.ts";
import { runLoad } from "./load.ts";
import { perSecond } from "./stats.ts";

/** The installed pg-boss version (S5's peer). */
export const PG_BOSS_IN_FLIGHT = 16;

/**
 * S5: pg-boss 10 on the same PostgreSQL (its own schema in the run's database): send() at 16 in
 * flight; then two drains of `drainCount` jobs with 4 workers each, fetch(100) + complete one
 * by one, and fetch(100) + complete(ids[]).
 */
export async function runPgBoss(ctx: BenchContext): Promise<void> {
  const boss = new PgBoss({ connectionString: ctx.db.url, max: 20, schedule: false, application_name: "agentq-bench-pgboss" });
  boss.on("error", (e: Error) => ctx.log(`  pg-boss error: ${e.message}`));
  await boss.start();
  try {
    for (const q of ["bench-send", "bench-one", "bench-ids"]) await boss.createQueue(q);
    ctx.log(`S5 pg-boss send(), ${PG_BOSS_IN_FLIGHT} in flight, ${ctx.sizes.levelMs / 1000} s`);
    await boss.send("bench-send", PAYLOAD);
    const r = await runLoad({
      name: "pg-boss send",
      inFlight: PG_BOSS_IN_FLIGHT,
      maxOps: 10_000_000,
      maxMs: ctx.sizes.levelMs,
      op: async () => {
        if ((await boss.send("bench-send", PAYLOAD)) === null) throw new Error("pg-boss send returned null");
      },
      log: ctx.log,
    });
    ctx.m.set(`pgboss.send@${PG_BOSS_IN_FLIGHT}`, perSecond(r.count, r.elapsedMs));
    ctx.log(`  ${perSecond(r.count, r.elapsedMs).toFixed(0)} sends/s`);
    for (const mode of ["one", "ids"] as const) {
      const queue = `bench-${mode}`;
      ctx.log(`S5 pg-boss: inserting ${ctx.sizes.drainCount} jobs into ${queue}`);
      for (let done = 0; done < ctx.sizes.drainCount; ) {
        const n = Math.min(5_000, ctx.sizes.drainCount - done);
        await boss.insert(Array.from({ length: n }, () => ({ name: queue, data: PAYLOAD })));
        done += n;
      }
      ctx.log(`S5 pg-boss drain, 4 workers, fetch(100) + ${mode === "one" ? "complete one by one" : "complete(ids[])"}`);
      let completed = 0;
      const started = performance.now();
      const deadline = started + ctx.sizes.drainMaxMs;
      const progress = setInterval(() => ctx.log(`  pg-boss ${mode}: ${completed} completed, ${perSecond(completed, performance.now() - started).toFixed(0)}/s`), 5_000);
      const worker = async () => {
        while (performance.now() < deadline) {
          const jobs = await boss.fetch(queue, { batchSize: 100 });
          if (jobs.length === 0) return;
          if (mode === "one") {
            for (const job of jobs) {
              await boss.complete(queue, job.id);
              completed += 1;
            }
          } else {
            await boss.complete(
              queue,
              jobs.map((j) => j.id),
            );
            completed += jobs.length;
          }
        }
      };
      try {
        await Promise.all([worker(), worker(), worker(), worker()]);
      } finally {
        clearInterval(progress);
      }
      const rate = perSecond(completed, performance.now() - started);
      ctx.m.set(mode === "one" ? "pgboss.fetch100+complete1" : "pgboss.fetch100+completeIds", rate);
      ctx.log(`  ${completed} completed: ${rate.toFixed(0)} jobs/s`);
    }
  } finally {
    await boss.stop({ graceful: false, wait: true, timeout: 5_000 });
  }
}
