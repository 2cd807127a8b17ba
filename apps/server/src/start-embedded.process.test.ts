import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@agentq/postgres";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// Issue 3's "pnpm start serves /v1/version within 30 s on the embedded PostgreSQL, with no
// DATABASE_URL": the production entry point, started as `pnpm start` starts it, with neither
// DATABASE_URL nor SVC_SECRET_KEY, over a fresh data folder (so a first start: initdb, start,
// migrations, a generated secret). Its embedded PostgreSQL gets a free port of its own, so it
// cannot meet the test run's embedded server (54339), a developer's (54329) or the machine's
// PostgreSQL (5432).

const START_BUDGET_MS = 30_000;


/** A free port that is none of the well-known PostgreSQL ports of this project's machines. */
async function freePostgresPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (![5432, 54329, 54339].includes(port)) return port;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM";
  }
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** The postmaster's pid, from the first line of `<pgDataDir>/postmaster.pid`, or null when there is none. */
function postmasterPid(pgDataDir: string): number | null {
  const file = join(pgDataDir, "postmaster.pid");
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

function logLines(output: string): Array<Record<string, unknown>> {
  return output.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

describe("pnpm start with no DATABASE_URL", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agentq-start-"));
  // mkdtemp makes the folder 0700; as root the embedded PostgreSQL runs as another user
  // (packages/postgres/src/embedded.ts), which must be able to enter it to reach `<dataDir>/pg`.
  chmodSync(dataDir, 0o755);
  const pgDataDir = join(dataDir, "pg");
  let server: SpawnedServer | null = null;

  afterAll(async () => {
    if (server !== null && server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill("SIGKILL");
      await server.exited;
    }
    // A failed run may leave its embedded server behind: stop it (fast shutdown) before removing its data.
    const pid = postmasterPid(pgDataDir);
    if (pid !== null && isAlive(pid)) {
      process.kill(pid, "SIGINT");
      const deadline = Date.now() + 20_000;
      while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs what `pnpm start` runs: the server package's `tsx src/main.ts`, which spawnServer starts", () => {
    const root = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
    const app = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { name: string; scripts: Record<string, string> };
    expect(root.scripts.start).toBe(`pnpm --filter ${app.name} start`);
    expect(app.scripts.start).toBe("tsx src/main.ts");
  });

  it("serves GET /v1/version within 30 s on a fresh embedded PostgreSQL, then stops it and exits 0 on SIGTERM", async () => {
    const pgPort = await freePostgresPort();
    const env: NodeJS.ProcessEnv = { ...process.env, AGENTQ_DATA_DIR: dataDir, AGENTQ_PG_PORT: String(pgPort), HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info" };
    // Nothing configured, as on a clean clone (a test run may itself have DATABASE_URL set).
    delete env.DATABASE_URL;
    delete env.SVC_SECRET_KEY;

    const startedAt = Date.now();
    server = await spawnServer(env, START_BUDGET_MS);
    const version = await fetch(`${server.baseUrl}/v1/version`);
    const elapsedMs = Date.now() - startedAt;
    expect(version.status).toBe(200);
    expect(((await version.json()) as { name: string }).name).toBe("agentq");
    expect(elapsedMs).toBeLessThan(START_BUDGET_MS);

    // It really is the embedded server, in the scratch folder, on the port it was given.
    expect(logLines(server.output()).some((l) => l.msg === "database ready, migrations applied" && l.database === "embedded")).toBe(true);
    const pid = postmasterPid(pgDataDir);
    expect(pid).not.toBeNull();
    expect(JSON.parse(readFileSync(`${pgDataDir}.json`, "utf8"))).toMatchObject({ port: pgPort });
    expect(await acceptsConnections(pgPort)).toBe(true);
    expect(existsSync(join(dataDir, "secret.key"))).toBe(true);

    server.child.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain("stopped cleanly");
    // The server waits for its PostgreSQL to be gone before it exits: no postmaster, no pid file, no listener.
    expect(isAlive(pid as number)).toBe(false);
    expect(existsSync(join(pgDataDir, "postmaster.pid"))).toBe(false);
    expect(await acceptsConnections(pgPort)).toBe(false);
  });
});
