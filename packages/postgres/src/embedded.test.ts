import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { expect, it } from "vitest";
import { EmbeddedPostgresError, repoRoot, startEmbeddedPostgres } from "./embedded.ts";

it("initialises a fresh data directory, serves on 127.0.0.1 on a port of its own, and restarts on the same data", async () => {
  const dataDir = join(repoRoot(), ".data", `pg-launcher-test-${randomBytes(4).toString("hex")}`);
  try {
    const started = Date.now();
    // Two launchers race on a fresh directory: one initialises and starts it, the other reuses it.
    const [first, second] = await Promise.all([
      startEmbeddedPostgres({ dataDir, port: 54400 + Math.floor(Math.random() * 500) }),
      startEmbeddedPostgres({ dataDir }),
    ]);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(second.port).toBe(first.port);
    await second.stop();
    expect(first.port).not.toBe(5432);
    expect(first.url).toContain("@127.0.0.1:");
    const sql = postgres(first.url, { max: 1, onnotice: () => undefined });
    await sql`create table kept (v int)`;
    await sql`insert into kept values (7)`;
    await sql.end();
    // Other launchers on the same data directory, even all at once, reuse the running server.
    const reused = await Promise.all([startEmbeddedPostgres({ dataDir }), startEmbeddedPostgres({ dataDir })]);
    expect(reused.map((r) => r.port)).toEqual([first.port, first.port]);
    await Promise.all(reused.map((r) => r.stop()));
    await first.stop();
    const again = await startEmbeddedPostgres({ dataDir });
    const sql2 = postgres(again.url, { max: 1, onnotice: () => undefined });
    expect(await sql2`select v from kept`).toEqual([{ v: 7 }]);
    await sql2.end();
    await again.stop();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(`${dataDir}.json`, { force: true });
    rmSync(`${dataDir}.log`, { force: true });
  }
}, 60_000);

it("refuses a data directory it did not initialise, saying why and how to use DATABASE_URL instead", async () => {
  const dataDir = join(repoRoot(), ".data", `pg-launcher-foreign-${randomBytes(4).toString("hex")}`);
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(dataDir, "notes.txt"), "not a database");
  try {
    const failure = await startEmbeddedPostgres({ dataDir }).then(() => null, (e: unknown) => e);
    expect(failure).toBeInstanceOf(EmbeddedPostgresError);
    expect((failure as Error).message).toContain("DATABASE_URL");
    expect((failure as Error).message).toContain(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
