import { startEmbeddedPostgres, type EmbeddedPostgres } from "@agentq/postgres";
import { readFileSync } from "node:fs";

const ESCALATE_AFTER_MS = 10_000;

/** How PostgreSQL is shut down: fast (SIGINT: disconnect, checkpoint) or immediate (SIGQUIT: no checkpoint, crash recovery on start). */
export type ShutdownMode = "fast" | "immediate";

/** The run's own embedded PostgreSQL, which it can shut down and start again on the same data folder. */
export interface PgControl {
  /** The superuser URL of the `postgres` database, direct (not through the proxy). */
  url(): string;
  port(): number;
  /**
   * Shuts the server down, waiting until the postmaster is gone. A fast shutdown still running
   * after 10 s is escalated to an immediate one (and that to SIGKILL after 10 s more); the
   * answer says how it ended.
   */
  stop(mode: ShutdownMode): Promise<"fast" | "immediate" | "escalated" | "killed" | "not running">;
  /** Starts it again on the same data folder (the same port unless it was taken meanwhile). */
  start(): Promise<void>;
}

/**
 * Starts an embedded PostgreSQL under `dataDir` through the project's launcher. The launcher
 * only does a fast shutdown of a server it started, so shutdowns signal the postmaster named in
 * `postmaster.pid` directly (SIGINT fast, SIGQUIT immediate), and a start is the launcher again.
 */
export async function startPgControl(dataDir: string): Promise<PgControl> {
  // A throwaway cluster, but a durable one: fsync and synchronous commit stay on, so an
  // immediate shutdown loses nothing that was acknowledged.
  const settings = { max_connections: "200" };
  let current: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir, settings });

  const postmasterPid = (): number | null => {
    try {
      const pid = Number(readFileSync(`${dataDir}/postmaster.pid`, "utf8").split("\n")[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  };
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  return {
    url: () => current.url,
    port: () => current.port,
    async stop(mode) {
      const pid = postmasterPid();
      if (pid === null || !alive(pid)) return "not running";
      const waitGone = async (ms: number): Promise<boolean> => {
        const deadline = Date.now() + ms;
        while (alive(pid)) {
          if (Date.now() > deadline) return false;
          await new Promise((r) => setTimeout(r, 25));
        }
        return true;
      };
      let outcome: "fast" | "immediate" | "escalated" | "killed" = mode;
      process.kill(pid, mode === "fast" ? "SIGINT" : "SIGQUIT");
      if (!(await waitGone(ESCALATE_AFTER_MS))) {
        if (mode === "fast") {
          outcome = "escalated";
          process.kill(pid, "SIGQUIT");
        }
        if (!(await waitGone(ESCALATE_AFTER_MS))) {
          outcome = "killed";
          process.kill(pid, "SIGKILL");
          await waitGone(ESCALATE_AFTER_MS);
        }
      }
      // The launcher's own handle sees the exit; let it forget the process.
      await current.stop();
      return outcome;
    },
    async start() {
      current = await startEmbeddedPostgres({ dataDir, settings });
    },
  };
}
