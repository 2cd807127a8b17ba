import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runFaults } from "./run-faults.ts";
import { faultCounts } from "./summary.ts";

// The short fault run of `pnpm test`: its own embedded PostgreSQL, two server processes, 35 s of
// workload with a few faults (two server kills, a fast and an immediate PostgreSQL restart, and
// one of each other kind), the drain, then the checker. Every loop of the run is bounded, so it
// ends by itself well inside the timeout.
describe("fault run (short)", () => {
  it(
    "keeps the delivery promise through server kills and PostgreSQL restarts",
    async () => {
      const result = await runFaults({
        workloadMs: 35_000,
        seed: 20_260_101,
        drainTimeoutMs: 120_000,
        // Another checkout's apps/server may be put under test instead of this one's.
        ...(process.env.AGENTQ_FAULTS_SERVER_DIR ? { serverDir: process.env.AGENTQ_FAULTS_SERVER_DIR } : {}),
        leadWith: ["server_kill", "pg_restart_immediate"],
        plan: { server_kill: 2, server_pause: 1, pg_restart_fast: 1, pg_restart_immediate: 1, pg_terminate_backends: 1, proxy_latency: 1, proxy_blackhole: 1 },
      });
      const faults = faultCounts(result.history);
      if (!result.report.ok) console.error(result.summary);
      expect(faults.server_kill ?? 0).toBeGreaterThanOrEqual(1);
      expect((faults.pg_restart_fast ?? 0) + (faults.pg_restart_immediate ?? 0)).toBeGreaterThanOrEqual(1);
      expect(result.report.checked.acknowledgedSends).toBeGreaterThan(0);
      expect(result.report.examples).toEqual([]);
      expect(result.report.ok).toBe(true);
      // Kept when the run fails (the history is the evidence); removed when it passes.
      rmSync(result.outDir, { recursive: true, force: true });
    },
    420_000,
  );
});
