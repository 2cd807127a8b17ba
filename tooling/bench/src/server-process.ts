import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleServer, PRODUCTION_NODE_FLAGS, bootstrapWorkspace } from "@agentq/server/testing";

/** The server package of this checkout. */
export const SERVER_DIR = fileURLToPath(new URL("../../../apps/server/", import.meta.url));
const START_TIMEOUT_MS = 60_000;

/** The production server, run as a child process of the benchmark. */
export interface ServerProcess {
  baseUrl: string;
  /** The pid of the server's own node process (no tsx supervisor in front). */
  pid: number;
  /** The server's environment (for `src/bootstrap.ts` run beside it). */
  env: NodeJS.ProcessEnv;
  /** The apps/server folder it was built from (this checkout's, or `--server-dir`). */
  serverDir: string;
  /** Peak resident set size so far (VmHWM of /proc/<pid>/status), in MB; NaN where /proc is absent. */
  rssPeakMb(): number;
  /** Current resident set size (VmRSS), in MB; NaN where /proc is absent. */
  rssMb(): number;
  /** CPU time the server's process has used so far (user + system, /proc/<pid>/stat), in ms; NaN where /proc is absent. */
  cpuMs(): number;
  /** Resets the peak (writes 5 to /proc/<pid>/clear_refs, Linux 4.0+), so a later `rssPeakMb` covers one scenario; false where that is not possible. */
  resetRssPeak(): boolean;
  /** The last output lines (for diagnosis). */
  outputTail(): string;
  /** SIGTERM (the drain), then SIGKILL after 30 s. */
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on every Linux the bench runs on). */
const USER_HZ = 100;

function procCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return Number.NaN;
  }
}

function procStatusMb(pid: number, field: "VmHWM" | "VmRSS"): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Builds the production bundle of apps/server (what `pnpm build` makes and `pnpm start:prod`
 * runs: the same source as `pnpm start`, without the TypeScript loader) into a temporary folder,
 * starts it with plain `node` and the production flags (`PRODUCTION_NODE_FLAGS`, as `pnpm start:prod`) on 127.0.0.1 and a free port (so `pid` is the server itself), and
 * waits for its "agentq listening" log line.
 */
export async function startServer(databaseUrl: string, options: { cpuProfileDir?: string; serverDir?: string; /** Appends what the server writes to this file, but its info lines (for diagnosis). */ logFile?: string; /** AGENTQ_WORKERS (default 1). */ workers?: number; /** More of the server's environment (a scenario's settings). */ env?: Record<string, string> } = {}): Promise<ServerProcess> {
  const serverDir = options.serverDir ?? SERVER_DIR;
  const dataDir = mkdtempSync(join(tmpdir(), "agentq-bench-data-"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    SVC_SECRET_KEY: "bench-secret-key-0123456789abcdef0123456789abcdef",
    AGENTQ_DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: process.env.AGENTQ_BENCH_LOG_LEVEL ?? "info",
    // The default in-process rate limiter stays in the path, as in production; the fixture lifts
    // the workspace's per-minute limits far above what any scenario sends (fixture.ts).
    SVC_RATE_LIMITER: "memory",
    // One HTTP worker unless a scenario asks for more (the bundle's default is one per core).
    AGENTQ_WORKERS: options.workers === undefined ? "1" : String(options.workers),
    ...options.env,
  };
  const profile = options.cpuProfileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${options.cpuProfileDir}`];
  const bundle = await bundleServer(serverDir, dataDir);
  // AGENTQ_BENCH_SERVER_NODE_FLAGS: node/V8 flags for the server alone (A/B of a runtime setting).
  const nodeFlags = (process.env.AGENTQ_BENCH_SERVER_NODE_FLAGS ?? "").split(" ").filter((f) => f !== "");
  const child: ChildProcess = spawn(process.execPath, [...PRODUCTION_NODE_FLAGS, ...nodeFlags, ...profile, bundle], { cwd: serverDir, env, stdio: ["ignore", "pipe", "pipe"] });
  let tail = "";
  let pending = "";
  let resolvePort: (port: number) => void = () => undefined;
  let rejectPort: (e: Error) => void = () => undefined;
  const portPromise = new Promise<number>((resolve, reject) => {
    resolvePort = resolve;
    rejectPort = reject;
  });
  const onData = (chunk: Buffer) => {
    const text = chunk.toString("utf8");
    tail = (tail + text).slice(-20_000);
    pending += text;
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      // The log file keeps what is not a served request's info line (a million of those in a soak).
      if (options.logFile !== undefined && !line.startsWith('{"level":30,')) appendFileSync(options.logFile, `${line}\n`);
      if (!line.includes('"agentq listening"')) continue;
      try {
        resolvePort((JSON.parse(line) as { port: number }).port);
      } catch {
        // not JSON after all
      }
    }
    if (pending.length > 100_000) pending = "";
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      rejectPort(new Error(`server exited (${code ?? signal}) before listening:\n${tail.slice(-4000)}`));
      resolve();
    });
  });
  const timer = setTimeout(() => rejectPort(new Error(`server did not listen within ${START_TIMEOUT_MS} ms:\n${tail.slice(-4000)}`)), START_TIMEOUT_MS);
  let port: number;
  try {
    port = await portPromise;
  } catch (e) {
    child.kill("SIGKILL");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  } finally {
    clearTimeout(timer);
  }
  const pid = child.pid as number;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    pid,
    env,
    serverDir,
    rssPeakMb: () => procStatusMb(pid, "VmHWM"),
    rssMb: () => procStatusMb(pid, "VmRSS"),
    cpuMs: () => procCpuMs(pid),
    resetRssPeak() {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, "5");
        return true;
      } catch {
        return false;
      }
    },
    outputTail: () => tail,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const forced = setTimeout(() => child.kill("SIGKILL"), 30_000);
        await exited;
        clearTimeout(forced);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs `src/bootstrap.ts --json` of the server beside it; returns the workspace and its administrative token. */
export function bootstrap(server: Pick<ServerProcess, "env" | "serverDir">): Promise<{ workspace_id: string; token: string; ai_account_id: string }> {
  return bootstrapWorkspace(server.env, { workspace: "bench", email: "bench@example.test" }, server.serverDir);
}
