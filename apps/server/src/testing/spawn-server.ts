import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));

/** Environment for a spawned server or command: a scratch data folder and a fixed secret, so tests never touch `.data/`. */
export function serverEnv(databaseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    SVC_SECRET_KEY: "test-secret-key-0123456789abcdef0123456789abcdef",
    AGENTQ_DATA_DIR: mkdtempSync(join(tmpdir(), "agentq-data-")),
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "info",
    ...extra,
  };
}

/** A real `agentq` server process. */
export interface SpawnedServer {
  baseUrl: string;
  child: ChildProcess;
  /** Everything the process wrote so far (JSON log lines). */
  output(): string;
  /** Resolves with the exit code (or signal) once the process exits. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `node --import tsx src/main.ts` (or `command`, e.g. `["pnpm", "start"]` from the repository's root, as
 * a user starts it) and waits for its "agentq listening" log line. A `command` runs in a process
 * group of its own (`stopProcessGroup` ends it with every child).
 */
export async function spawnServer(env: NodeJS.ProcessEnv, timeoutMs = 90_000, command?: { argv: readonly [string, ...string[]]; cwd: string }): Promise<SpawnedServer> {
  const child =
    command === undefined
      ? // node with tsx's loader, one process: the tsx command would run the server as its child,
        // which a SIGKILL of the command leaves running (an orphan holding its port and database).
        spawn(process.execPath, ["--import", "tsx", "src/main.ts"], { cwd: SERVER_DIR, env, stdio: ["ignore", "pipe", "pipe"] })
      : spawn(command.argv[0], command.argv.slice(1), { cwd: command.cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      for (const line of output.split("\n")) {
        if (!line.includes('"agentq listening"')) continue;
        const { port } = JSON.parse(line) as { port: number };
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${port}`);
        return;
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  return { baseUrl, child, output: () => output, exited };
}

/** Sends SIGTERM to a process group started with `detached: true` (a `pnpm ...` and its children), waits for the leader and then the whole group, and kills what is left after `graceMs`. */
export async function stopProcessGroup(p: { child: ChildProcess; exited: Promise<unknown> }, graceMs = 10_000): Promise<void> {
  const pid = p.child.pid;
  if (pid === undefined) return;
  signalGroup(pid, "SIGTERM");
  await p.exited;
  // The leader (pnpm, tsx) may exit before the server it started: wait for the whole group,
  // then kill what is left, so no server outlives its test.
  const deadline = Date.now() + graceMs;
  while (signalGroup(pid, 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  signalGroup(pid, "SIGKILL");
}

/** Sends `signal` to process group `pid`; false when the group no longer exists. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The repository's root (where users type `pnpm ...`). */
export const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/**
 * Runs `pnpm <args>` from the repository's root to completion, exactly as a user types it
 * (`pnpm admin workspace plan ...`, `pnpm bootstrap ...`).
 */
export function runPnpm(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string = REPO_ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return collectProcess("pnpm", args, { cwd, env });
}

/** Runs one of the server's commands (`src/bootstrap.ts`, `src/admin/main.ts`) to completion, from `serverDir` (default: this checkout's apps/server). */
export function runServerCommand(script: string, args: readonly string[], env: NodeJS.ProcessEnv, serverDir: string = SERVER_DIR): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return collectProcess(join(serverDir, "node_modules", ".bin", "tsx"), [script, ...args], { cwd: serverDir, env });
}

/** Runs `command` to completion and collects its exit code and output (stdin closed). */
export function collectProcess(command: string, args: readonly string[], o: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: o.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The MCP Inspector's binary (a dev dependency of apps/server), run with `--cli` by the tests as a user would. */
export const MCP_INSPECTOR = join(SERVER_DIR, "node_modules", ".bin", "mcp-inspector");

/** `mcp-inspector --cli <url> --transport http --header "Authorization: Bearer <token>" ...args` to completion. */
export function runMcpInspector(mcpUrl: string, token: string, args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return collectProcess(MCP_INSPECTOR, ["--cli", mcpUrl, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args], { cwd: SERVER_DIR, env: process.env });
}

/** `pnpm bootstrap --workspace NAME --email EMAIL --json` as a command: a new workspace, its owner and administrative credential. */
export async function bootstrapWorkspace(env: NodeJS.ProcessEnv, p: { workspace: string; email: string }, serverDir: string = SERVER_DIR): Promise<{ workspace_id: string; ai_account_id: string; token: string }> {
  const r = await runServerCommand("src/bootstrap.ts", ["--workspace", p.workspace, "--email", p.email, "--json"], env, serverDir);
  if (r.code !== 0) throw new Error(`bootstrap exited with ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as { workspace_id: string; ai_account_id: string; token: string };
}
