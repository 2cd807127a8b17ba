import postgres from "postgres";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resilientPoolOptions } from "./pool-options.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// The pool options of every long-lived pool (resilientPoolOptions) under connections cut while
// queries are pipelined and transactions are open: every query settles within 15 s with its own
// answer or a connection error, and the pool serves again after. With postgres.js's defaults a
// query waited for a reconnect backoff grown to 20 s or a stalled connect's 30 s timeout (this
// test saw 3 of them). The stale-session fix of patches/postgres@3.4.9.patch is exercised by
// the server's resilience test (apps/server/src/resilience.process.test.ts).
let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe("postgres.js under connections cut mid-pipeline", () => {
  it("settles every query with its own row or an error, and serves again after", async () => {
    // Its own application name, so only its connections are cut (other test files share the server).
    const app = `agentq-cut-${randomUUID()}`;
    // fetch_types off: its start-up query, cut, rejects where nobody awaits it (the server logs
    // and ignores that rejection, see run-service.ts); here it would fail the run.
    const victim = postgres(db.url, { max: 4, onnotice: () => undefined, connection: { application_name: app }, ...resilientPoolOptions, fetch_types: false });
    const wrong: string[] = [];
    let hung = 0;
    let answered = 0;
    let failed = 0;
    let stop = false;
    let next = 0;
    const worker = async () => {
      while (!stop) {
        const i = next++;
        const outcome = await Promise.race([
          (i % 2 === 0 ? victim<{ i: number }[]>`select ${i}::int as i` : victim.begin(async (tx) => { await tx`select 1`; return tx<{ i: number }[]>`select ${i}::int as i`; })).then((rows) => rows, (e: unknown) => e),
          sleep(15_000).then(() => "hung" as const),
        ]);
        if (outcome === "hung") hung++;
        else if (outcome instanceof Error) failed++;
        else if (Array.isArray(outcome) && outcome.length === 1 && outcome[0]?.i === i) answered++;
        else wrong.push(`query ${i} got ${JSON.stringify(outcome).slice(0, 80)}`);
      }
    };
    const workers = Array.from({ length: 24 }, worker);
    for (let round = 0; round < 60; round++) {
      await db.sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${app}`;
      await sleep(25);
    }
    stop = true;
    await Promise.all(workers);
    expect({ wrong: wrong.slice(0, 5), hung }).toEqual({ wrong: [], hung: 0 });
    expect(failed).toBeGreaterThan(0);
    expect(answered).toBeGreaterThan(0);
    const [after] = await victim<{ ok: number }[]>`select 1 as ok`;
    expect(after?.ok).toBe(1);
    await victim.end({ timeout: 1 });
  }, 120_000);
});
