import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// A query that fails after some of its rows (or loses its connection between them) must leave no
// trace in the next query's answer. postgres.js 3.4.9 reset its row count only when a query
// completed, so the next query on that connection stored its rows after as many empty slots (the
// connection-loss test once saw `[null, {"i":466}]`); patches/postgres@3.4.9.patch resets it with
// the result. This case fails on the unpatched driver.
let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

describe("postgres.js after a query that failed between its rows", () => {
  it("answers the next query on the same connection with its own rows only", async () => {
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    try {
      // Rows 1 and 2 are sent before row 3 divides by zero.
      const failed = await sql`select case when g < 3 then g else 1 / (g - 3) end as v from generate_series(1, 5) g`.then(
        () => null,
        (e: { code?: string }) => e.code,
      );
      expect(failed).toBe("22012");
      const rows = await sql<{ x: number }[]>`select 7 as x`;
      expect([...rows]).toEqual([{ x: 7 }]);
    } finally {
      await sql.end({ timeout: 2 });
    }
  });
});
