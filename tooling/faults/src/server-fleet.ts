import { spawn, type ChildProcess } from "node:child_process";
import { PRODUCTION_NODE_FLAGS, bootstrapWorkspace, runServerCommand } from "@agentq/server/testing";
import { fileURLToPath } from "node:url";

/** The server package of this checkout (a run may point at another checkout's instead). */
export const DEFAULT_SERVER_DIR = fileURLToPath(new URL("../../../apps/server/", import.meta.url));
const START_TIMEOUT_MS = 30_000;
const OUTPUT_TAIL_CHARS = 20_000;

/**
 * One agentq server process of the run, on a fixed port so clients keep one address across
 * restarts. It runs as `node <PRODUCTION_NODE_FLAGS> <bundle>` or `node --import tsx src/main.ts`, never through the tsx
 * CLI (which would put a supervising process in front): a signal reaches the server itself.
 */
export interface ServerSlot {
  name: string;
  baseUrl: string;
  /** Whether a process exists (starting or listening; paused or not). */
  running(): boolean;
  /** Whether the process is listening (paused or not). */
  ready(): boolean;
  /** Starts the process unless one exists; a second call while a start is under way joins it. */
  start(): Promise<void>;
  /** kill -9, waiting for the exit. */
  kill(): Promise<void>;
  /** SIGSTOP, then SIGCONT after `ms`. */
  pause(ms: number): Promise<void>;
  /** SIGTERM (the drain), waiting for the exit. */
  stop(): Promise<void>;
  /** The last output of the current (or last) process, for diagnosis. */
  outputTail(): string;
  /** Exits the harness did not cause, with their output tails. */
  unexpectedExits(): { at: number; code: number | null; signal: string | null; tail: string }[];
}

/**
 * Creates a slot running `serverDir`'s src/main.ts (or its bundle, see `bundleServer`); `env` is
 * the server's environment (PORT is set here).
 */
export function serverSlot(p: { name: string; port: number; env: NodeJS.ProcessEnv; serverDir: string; bundle: string | null; onUnexpectedExit: (slot: ServerSlot) => void }): ServerSlot {
  const { name, port, env, serverDir, bundle, onUnexpectedExit } = p;
  let child: ChildProcess | null = null;
  let isReady = false;
  let starting: Promise<void> | null = null;
  let exited: Promise<void> = Promise.resolve();
  let expectingExit = false;
  let tail = "";
  const unexpected: { at: number; code: number | null; signal: string | null; tail: string }[] = [];

  async function startProcess(): Promise<void> {
    expectingExit = false;
    isReady = false;
    const proc = spawn(process.execPath, bundle === null ? ["--import", "tsx", "src/main.ts"] : [...PRODUCTION_NODE_FLAGS, bundle], { cwd: serverDir, env: { ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
    child = proc;
    let listening = false;
    let resolveListening: () => void = () => undefined;
    let rejectListening: (e: Error) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      resolveListening = resolve;
      rejectListening = reject;
    });
    const onData = (chunk: Buffer) => {
      tail = (tail + chunk.toString("utf8")).slice(-OUTPUT_TAIL_CHARS);
      if (!listening && tail.includes('"agentq listening"')) {
        listening = true;
        resolveListening();
      }
    };
    proc.stdout?.on("data", onData);
    proc.stderr?.on("data", onData);
    exited = new Promise<void>((resolve) => {
      proc.once("exit", (code, signal) => {
        if (child === proc) {
          child = null;
          isReady = false;
        }
        if (!listening) rejectListening(new Error(`server ${name} exited (${code ?? signal}) before listening:\n${tail.slice(-4000)}`));
        else if (!expectingExit) {
          unexpected.push({ at: Date.now(), code, signal, tail: tail.slice(-4000) });
          onUnexpectedExit(slot);
        }
        resolve();
      });
    });
    const timer = setTimeout(() => rejectListening(new Error(`server ${name} did not listen within ${START_TIMEOUT_MS} ms:\n${tail.slice(-4000)}`)), START_TIMEOUT_MS);
    // The "agentq listening" line is logged at info; below that level, ask /v1/version.
    void (async () => {
      while (!listening && child === proc) {
        await new Promise((r) => setTimeout(r, 100));
        try {
          const res = await fetch(`${slot.baseUrl}/v1/version`, { signal: AbortSignal.timeout(1_000) });
          if (res.ok && child === proc && !listening) {
            listening = true;
            resolveListening();
          }
        } catch {
          // not up yet
        }
      }
    })();
    try {
      await ready;
      isReady = child === proc;
    } catch (e) {
      expectingExit = true;
      proc.kill("SIGKILL");
      await exited;
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  const slot: ServerSlot = {
    name,
    baseUrl: `http://127.0.0.1:${port}`,
    running: () => child !== null,
    ready: () => child !== null && isReady,
    start() {
      if (starting !== null) return starting;
      if (child !== null) return Promise.resolve();
      starting = startProcess().finally(() => (starting = null));
      return starting;
    },
    async kill() {
      if (child === null) return;
      expectingExit = true;
      child.kill("SIGKILL");
      await exited;
    },
    async pause(ms) {
      const proc = child;
      if (proc === null) return;
      proc.kill("SIGSTOP");
      await new Promise((r) => setTimeout(r, ms));
      proc.kill("SIGCONT");
    },
    async stop() {
      if (child === null) return;
      expectingExit = true;
      const proc = child;
      proc.kill("SIGCONT");
      proc.kill("SIGTERM");
      const forced = setTimeout(() => proc.kill("SIGKILL"), 40_000);
      await exited;
      clearTimeout(forced);
    },
    outputTail: () => tail,
    unexpectedExits: () => unexpected,
  };
  return slot;
}

/** Runs `pnpm bootstrap --json` of `serverDir` and returns its answer. */
export function runBootstrap(serverDir: string, env: NodeJS.ProcessEnv): Promise<{ workspace_id: string; token: string }> {
  return bootstrapWorkspace(env, { workspace: "faults", email: "faults@example.test" }, serverDir);
}

/** The highest per-minute request limit `pnpm admin workspace plan --set` takes (nine digits). */
const NO_RATE_LIMIT = "999999999";

/**
 * Lifts the run's workspace out of the request-rate limits with the operator's command (`pnpm admin
 * workspace plan ID enterprise --set ...`), as the benchmark does: the fault run judges delivery
 * under faults, and a standard plan's 3,000 requests a minute per server process refused its
 * consumers for most of a 30-minute run, so its drain could not finish. The limiter stays in the
 * path; it never refuses. Run it before the servers serve the workspace (they cache its limits).
 */
export async function liftRateLimits(serverDir: string, env: NodeJS.ProcessEnv, workspaceId: string): Promise<void> {
  const args = ["workspace", "plan", workspaceId, "enterprise", "--set", `credential_requests_per_minute=${NO_RATE_LIMIT}`, "--set", `workspace_requests_per_minute=${NO_RATE_LIMIT}`, "--reason", "fault run"];
  const r = await runServerCommand("src/admin/main.ts", args, env, serverDir);
  if (r.code !== 0) throw new Error(`admin workspace plan exited with ${r.code}: ${r.stderr}`);
}
