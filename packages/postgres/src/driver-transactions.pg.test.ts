import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// sql.begin reserves its connection when BEGIN is written. postgres.js 3.4.9 skipped that step
// whenever the connection's pipeline was full or its socket pushed back (porsager/postgres#823,
// #1189): BEGIN then ran on a connection the pool still handed out, and the transaction failed
// with UNSAFE_TRANSACTION, or an unrelated query ran inside it. CI saw it once as a 503 among
// 200 parallel TOTP guesses. patches/postgres@3.4.9.patch reserves on every write; these cases
// fail on the unpatched driver.
let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

// max_pipeline is a postgres.js option its type definitions leave out.
const pool = (options: postgres.Options<Record<string, never>> & { max_pipeline: number }) => postgres(db.url, options);

describe("postgres.js transactions at the pipeline's limit", () => {
  it("runs a transaction when pipelining is off (max_pipeline 0)", async () => {
    const sql = pool({ max: 2, max_pipeline: 0, onnotice: () => undefined });
    try {
      const rows = await sql.begin((tx) => tx<{ ok: number }[]>`select 1 as ok`);
      expect(rows[0]?.ok).toBe(1);
    } finally {
      await sql.end({ timeout: 2 });
    }
  });

  it("reserves a BEGIN that fills the pipeline: the transaction commits and no other query runs inside it", async () => {
    const notices: string[] = [];
    const sql = pool({ max: 1, max_pipeline: 1, onnotice: (n) => notices.push(String(n.code)) });
    try {
      for (let round = 0; round < 5; round++) {
        // Queries are sent when awaited; execute() sends this one now, so BEGIN is pipelined behind it.
        const before = sql`select pg_sleep(0.02)`.execute();
        const transaction = sql.begin(async (tx) => {
          await tx`select set_config('agentq.probe', 'inside', true)`;
          await new Promise((r) => setTimeout(r, 20));
          const [row] = await tx<{ v: string }[]>`select current_setting('agentq.probe', true) as v`;
          return row?.v;
        });
        const outside = sql<{ v: string | null }[]>`select current_setting('agentq.probe', true) as v`.execute();
        const [, inside, outsideRows] = await Promise.all([before, transaction, outside]);
        expect(inside).toBe("inside");
        expect(outsideRows[0]?.v ?? "").toBe("");
      }
      expect(notices).toEqual([]);
    } finally {
      await sql.end({ timeout: 2 });
    }
  });

  it("keeps many concurrent transactions apart on a small pool with a short pipeline", async () => {
    const sql = pool({ max: 3, max_pipeline: 2, onnotice: () => undefined });
    try {
      const work = Array.from({ length: 60 }, (_, i) =>
        i % 3 === 0
          ? sql<{ i: number }[]>`select ${i}::int as i`.execute().then((r) => r[0]?.i)
          : sql.begin(async (tx) => {
              await tx`select set_config('agentq.probe', ${String(i)}, true)`;
              const [row] = await tx<{ v: string }[]>`select current_setting('agentq.probe', true) as v`;
              return Number(row?.v);
            }),
      );
      const results = await Promise.allSettled(work);
      const errors = results.flatMap((r) => (r.status === "rejected" ? [String((r.reason as { code?: string }).code)] : []));
      expect(errors).toEqual([]);
      expect(results.map((r) => (r.status === "fulfilled" ? r.value : null))).toEqual(work.map((_, i) => i));
    } finally {
      await sql.end({ timeout: 2 });
    }
  });
});
