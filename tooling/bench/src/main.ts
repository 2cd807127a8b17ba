// `pnpm bench [--quick] [--soak [--soak-messages N]] [--baseline] [--profile] [--only ...] [--server-dir PATH]`: agentq against the PostgreSQL
// limit and against pg-boss, in one run (issue 7). Progress on stderr; the table on stdout; JSON
// and markdown under bench/results/.
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, release, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { FULL, QUICK, type BenchContext } from "./context.ts";
import { buildFigures } from "./figures.ts";
import { createFixture } from "./fixture.ts";
import { runLimit, runPgbench } from "./limit-scenarios.ts";
import { hasPush, runPush } from "./push-scenario.ts";
import { runMcp } from "./mcp-scenario.ts";
import { runMcpCatalogue } from "./catalogue-scenario.ts";
import { runPgBoss } from "./pgboss-scenario.ts";
import { openBenchDatabase } from "./postgres-target.ts";
import { renderMarkdown, renderText, type RunResult } from "./report.ts";
import { hasBatchAck, runDrain, runSend, runWakeup } from "./rest-scenarios.ts";
import { startServer } from "./server-process.ts";
import { runSoak } from "./soak-scenario.ts";
import { runTenants } from "./tenants-scenario.ts";
import { runRules } from "./rules-scenario.ts";
import { runTelemetryOn } from "./telemetry-scenario.ts";
import { runTwoWorkers, WORKERS } from "./workers-scenario.ts";

const USAGE = "usage: pnpm bench [--quick] [--soak [--soak-messages N]] [--baseline] [--profile] [--only L1,pgbench,S1,S2,S3,S4,C1,S5,S7,S8,T,N2] [--server-dir PATH]";
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const RESULTS_DIR = join(REPO_ROOT, "bench", "results");

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { quick: { type: "boolean", default: false }, soak: { type: "boolean", default: false }, "soak-messages": { type: "string" }, baseline: { type: "boolean", default: false }, profile: { type: "boolean", default: false }, only: { type: "string" }, "server-dir": { type: "string" } }, strict: true }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const soakCount = values["soak-messages"] === undefined ? 1_000_000 : Number(values["soak-messages"]);
  if (!Number.isInteger(soakCount) || soakCount < 10) {
    process.stderr.write(`--soak-messages must be an integer >= 10\n${USAGE}\n`);
    return 2;
  }
  const sizes = values.quick ? QUICK : FULL;
  const soakMaxMs = 150 * 60_000;
  // Every loop of the run is bounded in count and time; this is the last resort should one not be.
  const watchdog = setTimeout(
    () => {
      process.stderr.write("benchmark exceeded its time bound; exiting\n");
      process.exit(3);
    },
    (values.quick ? 10 : 60) * 60_000 + (values.soak ? soakMaxMs : 0),
  );
  watchdog.unref();

  const t0 = Date.now();
  const log = (text: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(6)} s] ${text}\n`);
  const startedAt = new Date().toISOString();
  log(`agentq bench, ${values.quick ? "quick" : "full"}${values.soak ? `, soak of ${soakCount} messages` : ""}`);

  const db = await openBenchDatabase(log);
  log(`database ${db.name} (${db.version.split(" on ")[0]})`);
  let server;
  const sql = postgres(db.url, { max: 4, onnotice: () => undefined, connection: { application_name: "agentq-bench" } });
  const m = new Map<string, number>();
  const notes: string[] = [];
  try {
    log("building and starting the production server (pnpm build's bundle of apps/server, run by node)");
    // --server-dir: another checkout's server under the same harness (A/B of a lever, back to back).
    const serverDir = values["server-dir"] === undefined ? undefined : resolve(values["server-dir"]);
    const serverLog = join(RESULTS_DIR, `${new Date(t0).toISOString().replace(/[:.]/g, "-")}-server.log`);
    server = await startServer(db.url, { logFile: serverLog, ...(values.profile ? { cpuProfileDir: join(RESULTS_DIR, "profiles") } : {}), ...(serverDir === undefined ? {} : { serverDir }) });
    log(`the server's log: ${serverLog}`);
    if (serverDir !== undefined) notes.push(`Server built from ${serverDir}.`);
    if (values.profile) log(`CPU profile of the server: ${join(RESULTS_DIR, "profiles")} (written when it stops)`);
    log(`server ${server.baseUrl}, pid ${server.pid}`);
    const fixture = await createFixture(server, sql);
    log(`workspace ${fixture.workspaceId}: producer and ${["l1", "sink", "drain", "drainbatch", "wake*", "mcp", "soak"].join(", ")}`);
    const ctx: BenchContext = { db, sql, server, fixture, sizes, log, m, notes };

    // --only (for working on one lever): the scenarios named; the table then lacks the others' ratios.
    const only = values.only === undefined ? null : new Set(values.only.split(",").map((x) => x.trim()));
    const runs = (name: string) => only === null || only.has(name);
    // Each scenario starts from a checkpoint, so none pays for the previous one's writes (a
    // checkpoint and its full-page writes falling inside one scenario and not another).
    const settled = async (name: string) => {
      if (!runs(name)) return false;
      await checkpoint(ctx);
      return true;
    };
    if (await settled("L1")) await runLimit(ctx);
    if (await settled("pgbench")) await runPgbench(ctx);
    if (await settled("S1")) await runSend(ctx);
    const batch = await hasBatchAck(ctx);
    if (await settled("S2")) {
      await runDrain(ctx, "single");
      await checkpoint(ctx);
      if (batch) await runDrain(ctx, "batch");
      else notes.push("S2 batch: this server has no POST /v1/messages/ack; not measured.");
    }
    if (await settled("S3")) {
      await runWakeup(ctx);
      await checkpoint(ctx);
      if (await hasPush(ctx)) await runPush(ctx);
      else notes.push("S3 push: this server offers no resources/subscribe over MCP; not measured.");
    }
    if (await settled("S4")) await runMcp(ctx);
    // A few requests, no load: no checkpoint before it.
    if (runs("C1")) await runMcpCatalogue(ctx);
    if (await settled("S5")) await runPgBoss(ctx);
    if (await settled("S7")) await runTenants(ctx);
    if (await settled("S8")) await runRules(ctx);
    if (await settled("T")) await runTelemetryOn(ctx, (env) => startServer(db.url, { env, logFile: serverLog.replace(/\.log$/, "-t.log"), ...(serverDir === undefined ? {} : { serverDir }) }));
    if (await settled("N2")) await runTwoWorkers(ctx, () => startServer(db.url, { workers: WORKERS, logFile: serverLog.replace(/\.log$/, "-n2.log"), ...(serverDir === undefined ? {} : { serverDir }) }));
    if (only !== null) notes.push(`Partial run: --only ${values.only}.`);
    m.set("server.rss_peak_mb", server.rssPeakMb());
    if (values.soak) {
      // S6's peak is the soak's own: the peak so far (the drains' 100-message answers) is reset first.
      if (!server.resetRssPeak()) notes.push("S6: the server's peak RSS could not be reset before the soak; it covers the whole run.");
      await checkpoint(ctx);
      await runSoak(ctx, { count: soakCount, maxMs: soakMaxMs, batchAck: batch });
    }
  } finally {
    log("stopping the server, dropping the database");
    await server?.stop();
    await sql.end({ timeout: 5 });
    await db.close();
  }

  const figures = buildFigures(m);
  const run: RunResult = {
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: values.quick ? "quick" : "full",
    soak: values.soak,
    machine: {
      nproc: availableParallelism(),
      cpu: cpus()[0]?.model ?? "unknown",
      memory_gb: Math.round(totalmem() / 2 ** 30),
      kernel: release(),
      node: process.version,
      postgres: db.version.split(" on ")[0] ?? db.version,
      postgres_kind: db.kind,
      load_average_at_start: loadavg()[0]?.toFixed(1) ?? "?",
    },
    settings: { ...sizes, ...(values.soak ? { soakMessages: soakCount } : {}) },
    figures,
    notes,
  };
  const text = renderText(figures);
  process.stdout.write(`\n${text}\n${notes.map((n) => `note: ${n}\n`).join("")}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  const stamp = startedAt.replace(/[:.]/g, "-");
  const json = `${JSON.stringify({ ...run, raw: Object.fromEntries(m) }, null, 2)}\n`;
  const md = renderMarkdown(run);
  writeFileSync(join(RESULTS_DIR, `${stamp}-${run.mode}.json`), json);
  writeFileSync(join(RESULTS_DIR, `${stamp}-${run.mode}.md`), md);
  if (values.baseline) {
    writeFileSync(join(RESULTS_DIR, "baseline.json"), json);
    writeFileSync(join(RESULTS_DIR, "baseline.md"), md);
  }
  log(`results: ${join(RESULTS_DIR, `${stamp}-${run.mode}.{json,md}`)}${values.baseline ? " and baseline.{json,md}" : ""}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);

/** CHECKPOINT of the run's PostgreSQL (a superuser's or pg_checkpoint's right; else noted once and skipped). */
async function checkpoint(ctx: BenchContext): Promise<void> {
  try {
    await ctx.sql`checkpoint`;
  } catch (e) {
    const note = `CHECKPOINT between scenarios refused (${(e as Error).message}); scenarios may pay for each other's writes.`;
    if (!ctx.notes.includes(note)) ctx.notes.push(note);
  }
}
