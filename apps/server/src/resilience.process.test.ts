import { testDatabaseUrl } from "@agentq/postgres/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { runServerCommand, serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// Regression for the postgres.js crash the fault run found: cutting the server's database
// connections (pg_terminate_backend) while requests are in flight used to kill the process with
// an uncatchable TypeError. The server must survive, answer 503 or succeed meanwhile, and
// recover on its own.
describe("the server when its database connections are cut", () => {
  let db: ScratchDatabase;
  let server: SpawnedServer;
  let token: string;
  let admin: postgres.Sql;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    const env = serverEnv(db.url);
    server = await spawnServer(env);
    const boot = await runServerCommand("src/bootstrap.ts", ["--workspace", "cut", "--email", "ops@cut.test", "--json"], env);
    token = (JSON.parse(boot.stdout) as { token: string }).token;
    admin = postgres(testDatabaseUrl(), { max: 1, onnotice: () => undefined });
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGTERM");
    await server.exited;
    await admin.end({ timeout: 5 });
    await db.drop();
  });

  const listAccounts = () =>
    fetch(`${server.baseUrl}/v1/ai-accounts`, { headers: { Authorization: `Bearer ${token}` } })
      .then((r) => r.status)
      .catch(() => 0);

  it("survives repeated pg_terminate_backend under continuous load and serves again", async () => {
    const dbName = new URL(db.url).pathname.slice(1);
    const statuses = new Set<number>();
    let stop = false;
    // Continuous traffic, so writes are queued on the connections at the moment they are cut.
    const workers = Array.from({ length: 24 }, async () => {
      while (!stop && server.child.exitCode === null) statuses.add(await listAccounts());
    });
    for (let round = 0; round < 30 && server.child.exitCode === null; round++) {
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${dbName} and pid <> pg_backend_pid()`;
      await new Promise((r) => setTimeout(r, 40));
    }
    stop = true;
    await Promise.all(workers);
    expect(server.child.exitCode, server.output().slice(-2000)).toBeNull();
    // Requests either succeeded or were refused as retryable (503); none reached a crash.
    for (const s of statuses) expect([200, 503]).toContain(s);
    let status = 0;
    for (let i = 0; i < 20 && status !== 200; i++) {
      status = await listAccounts();
      if (status !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(200);
  });
});
