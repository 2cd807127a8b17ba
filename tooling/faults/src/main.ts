// `pnpm test:faults [--minutes N] [--seed S]`: one fault run (default 5 minutes of workload
// under faults, then the drain), its summary printed; exits 1 on any violation.
import { parseArgs } from "node:util";
import { runFaults } from "./run-faults.ts";
import { faultCounts } from "./summary.ts";

const USAGE = "usage: pnpm test:faults [--minutes N] [--seed S] [--out DIR] [--server-dir PATH/apps/server]";

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { minutes: { type: "string", default: "5" }, seed: { type: "string" }, out: { type: "string" }, "server-dir": { type: "string" } }, strict: true }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const minutes = Number(values.minutes);
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  if (!(minutes > 0) || !Number.isInteger(seed)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const workloadMs = Math.round(minutes * 60_000);
  // Every loop of the run is bounded; this is the last resort should one not be.
  const watchdog = setTimeout(() => {
    process.stderr.write("fault run exceeded its time bound; exiting\n");
    process.exit(3);
  }, workloadMs + 15 * 60_000);
  watchdog.unref();
  const started = Date.now();
  const log = (text: string) => process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${text}\n`);
  log(`seed ${seed}, ${minutes} minutes (rerun with --seed ${seed})`);
  const result = await runFaults({ workloadMs, seed, log, ...(values.out ? { outDir: values.out } : {}), ...(values["server-dir"] ? { serverDir: values["server-dir"] } : {}) });
  process.stdout.write(`${result.summary}\n\nhistory and logs: ${result.outDir}\n`);
  const faults = faultCounts(result.history);
  log(`server kills ${faults.server_kill ?? 0}, PostgreSQL restarts ${(faults.pg_restart_fast ?? 0) + (faults.pg_restart_immediate ?? 0)}`);
  return result.report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);
