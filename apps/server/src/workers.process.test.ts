import { testDatabaseUrl } from "@agentq/postgres/testing";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleServer, PRODUCTION_NODE_FLAGS } from "./bundle.ts";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { serverEnv, spawnServer, stopProcessGroup, type SpawnedServer } from "./testing/spawn-server.ts";

// Issue 33, one process per core: the production bundle (`pnpm start:prod`, the Docker image)
// runs AGENTQ_WORKERS HTTP workers (default the number of cores) on one port through
// node:cluster. Shown on real processes: each worker logs "agentq listening" with its index on
// the same port, only worker 0 runs the background work, requests are answered by more than one
// worker (the access log's pid), a worker killed with SIGKILL is replaced, and SIGTERM to the
// primary drains every worker and exits 0.

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));

interface ListeningLine {
  pid: number;
  port: number;
  worker?: number;
  background?: boolean;
}

function listeningLines(server: SpawnedServer): ListeningLine[] {
  return server
    .output()
    .split("\n")
    .filter((l) => l.includes('"agentq listening"'))
    .map((l) => JSON.parse(l) as ListeningLine);
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("one process per core (AGENTQ_WORKERS, node:cluster)", () => {
  let db: ScratchDatabase;
  let bundleDir: string;
  let bundle: string;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    bundleDir = mkdtempSync(join(tmpdir(), "agentq-bundle-"));
    bundle = await bundleServer(SERVER_DIR, bundleDir);
  }, 120_000);
  afterAll(async () => {
    if (bundleDir !== undefined) rmSync(bundleDir, { recursive: true, force: true });
    await db?.drop();
  }, 60_000);

  it("serves on one port from AGENTQ_WORKERS workers, background in worker 0 only, replaces a killed worker, drains all on SIGTERM", async () => {
    const server = await spawnServer(serverEnv(db.url, { AGENTQ_WORKERS: "3" }), 90_000, { argv: [process.execPath, ...PRODUCTION_NODE_FLAGS, bundle], cwd: SERVER_DIR });
    try {
      await until(() => listeningLines(server).length >= 3, 60_000);
      const lines = listeningLines(server);
      expect(lines.map((l) => l.worker).sort()).toEqual([0, 1, 2]);
      expect(new Set(lines.map((l) => l.port)).size).toBe(1);
      expect(lines.map((l) => [l.worker, l.background]).sort()).toEqual([
        [0, true],
        [1, false],
        [2, false],
      ]);
      expect(new Set(lines.map((l) => l.pid)).size).toBe(3);
      expect(lines.map((l) => l.pid)).not.toContain(server.child.pid);

      // Requests are spread over the workers (each connection goes to the next worker in turn).
      const answeredBy = new Set<number>();
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${server.baseUrl}/v1/version`, { headers: { Connection: "close" } });
        expect(res.status).toBe(200);
      }
      await until(() => {
        for (const l of server.output().split("\n")) if (l.includes('"request served"') && l.includes("/v1/version")) answeredBy.add((JSON.parse(l) as { pid: number }).pid);
        return answeredBy.size >= 2;
      }, 10_000);

      // A worker killed for real is replaced, under the same index.
      const victim = lines.find((l) => l.worker === 1) as ListeningLine;
      process.kill(victim.pid, "SIGKILL");
      await until(() => listeningLines(server).filter((l) => l.worker === 1).length === 2, 60_000);
      expect((await fetch(`${server.baseUrl}/v1/version`)).status).toBe(200);

      // SIGTERM to the primary: every worker drains and the primary exits 0.
      const workers = listeningLines(server).map((l) => l.pid).filter((pid) => pid !== victim.pid);
      server.child.kill("SIGTERM");
      const exit = await server.exited;
      expect(exit.code).toBe(0);
      await until(() => workers.every((pid) => !alive(pid)), 10_000);
      expect(server.output()).toContain('"every worker stopped"');
    } finally {
      await stopProcessGroup(server);
    }
  }, 180_000);

  it("runs one worker per core by default, and one process under AGENTQ_WORKERS=1", async () => {
    const byDefault = await spawnServer(serverEnv(db.url), 90_000, { argv: [process.execPath, ...PRODUCTION_NODE_FLAGS, bundle], cwd: SERVER_DIR });
    try {
      const cores = availableParallelism();
      await until(() => listeningLines(byDefault).length >= cores, 60_000);
      expect(listeningLines(byDefault).length).toBe(cores);
    } finally {
      await stopProcessGroup(byDefault);
    }
    const single = await spawnServer(serverEnv(db.url, { AGENTQ_WORKERS: "1" }), 90_000, { argv: [process.execPath, ...PRODUCTION_NODE_FLAGS, bundle], cwd: SERVER_DIR });
    try {
      const [line] = listeningLines(single);
      expect(line?.pid).toBe(single.child.pid);
      expect(line?.worker).toBeUndefined();
    } finally {
      await stopProcessGroup(single);
    }
  }, 180_000);

  it("refuses a bad AGENTQ_WORKERS at start", async () => {
    await expect(spawnServer(serverEnv(db.url, { AGENTQ_WORKERS: "lots" }), 30_000, { argv: [process.execPath, ...PRODUCTION_NODE_FLAGS, bundle], cwd: SERVER_DIR })).rejects.toThrow(/AGENTQ_WORKERS/);
  }, 60_000);
});
