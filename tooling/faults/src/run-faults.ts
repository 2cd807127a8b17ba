import { serverEnv, bundleServer } from "@agentq/server/testing";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@agentq/postgres";
import postgres from "postgres";
import { checkRun, type CheckReport } from "./checker.ts";
import { defaultFaultPlan, injectFaults, scheduleFaults, startWithRetries, type FaultPlan, type PlannedFault } from "./fault-schedule.ts";
import { countLiveByState, countUnsealed, readFinalState } from "./final-state.ts";
import type { RunHistory } from "./history.ts";
import { startPgControl } from "./pg-control.ts";
import { seededRandom } from "./random.ts";
import { callRest } from "./rest-client.ts";
import { DEFAULT_SERVER_DIR, liftRateLimits, runBootstrap, serverSlot, type ServerSlot } from "./server-fleet.ts";
import { formatSummary, type RunMeta } from "./summary.ts";
import { startTcpProxy } from "./tcp-proxy.ts";
import { runConsumer, runProducer, type Consumer, type Producer, type WorkloadControl } from "./workload.ts";

/** The options of one fault run. */
export interface FaultRunOptions {
  /** How long producers send while faults are injected (ms). */
  workloadMs: number;
  seed: number;
  /** Faults per kind (default: `defaultFaultPlan` of the workload's minutes). */
  plan?: FaultPlan;
  /** Kinds scheduled first, in order (the short run in `pnpm test` leads with a kill and a PostgreSQL restart). */
  leadWith?: readonly PlannedFault["kind"][];
  /** The longest the quiet phase may take to drain the queue (default 180 s). */
  drainTimeoutMs?: number;
  producers?: number;
  consumers?: number;
  /** Recipient accounts; consumers are spread over them, so several compete for each. */
  recipients?: number;
  /** The apps/server folder whose code runs (default: this checkout's; e.g. a clean worktree of HEAD). */
  serverDir?: string;
  /** Run the servers from an esbuild bundle of the same source (default true: restarts take a second, not several). */
  bundle?: boolean;
  /** Where the history, summary and logs are written (default: a new folder under the OS temp dir). */
  outDir?: string;
  log?: (text: string) => void;
}

/** What a run returns: the history, the checker's report and the printed summary. */
export interface FaultRunResult {
  history: RunHistory;
  report: CheckReport;
  summary: string;
  meta: RunMeta;
  outDir: string;
  /** Planned faults that did not start before the workload ended. */
  skippedFaults: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const SECRET = "faults-secret-key-0123456789abcdef0123456789abcdef";


/**
 * One fault run: its own embedded PostgreSQL (own data folder and port) behind a TCP proxy, two
 * server processes, a bootstrapped workspace, producers and consumers over REST while faults are
 * injected on a seeded schedule, then a quiet phase that drains the queue, then the checker over
 * the history and the database. Everything listens on and talks to 127.0.0.1 only. Every loop
 * is bounded; the run cleans up after itself (the PostgreSQL data folder is removed).
 */
export async function runFaults(options: FaultRunOptions): Promise<FaultRunResult> {
  const log = options.log ?? (() => undefined);
  const random = seededRandom(options.seed);
  const nProducers = options.producers ?? 8;
  const nConsumers = options.consumers ?? 8;
  const nRecipients = options.recipients ?? 4;
  const plan = options.plan ?? defaultFaultPlan(options.workloadMs / 60_000);
  const drainTimeoutMs = options.drainTimeoutMs ?? 180_000;
  const serverDir = options.serverDir ?? DEFAULT_SERVER_DIR;
  const outDir = options.outDir ?? mkdtempSync(join(tmpdir(), `agentq-faults-${options.seed}-`));
  mkdirSync(outDir, { recursive: true });
  const pgDir = mkdtempSync(join(tmpdir(), "agentq-faults-pg-"));
  // As root, PostgreSQL runs as an unprivileged user, who must be able to reach its data folder.
  chmodSync(pgDir, 0o755);
  const scratchDirs: string[] = [pgDir];
  const startedAt = Date.now();

  const history: RunHistory = { sends: [], deliveries: [], settles: [], handOffs: [], faults: [], polls: {} };
  let shuttingDown = false;
  const cleanups: (() => Promise<void>)[] = [];
  try {
    log(`starting PostgreSQL in ${pgDir}`);
    const pg = await startPgControl(join(pgDir, "pg"));
    cleanups.push(async () => void (await pg.stop("fast")));
    const admin = postgres(pg.url(), { max: 2, onnotice: () => undefined, connection: { application_name: "agentq-faults" } });
    cleanups.push(() => admin.end({ timeout: 2 }));
    await admin`create database agentq`;
    const directUrl = new URL(pg.url());
    directUrl.pathname = "/agentq";
    const db = postgres(directUrl.toString(), { max: 2, onnotice: () => undefined, connection: { application_name: "agentq-faults" } });
    cleanups.push(() => db.end({ timeout: 2 }));

    const proxy = await startTcpProxy(pg.port());
    cleanups.push(() => proxy.close());
    const proxiedUrl = new URL(directUrl.toString());
    proxiedUrl.port = String(proxy.port);

    const bundle = options.bundle === false ? null : await bundleServer(serverDir, pgDir);
    const servers: ServerSlot[] = [];
    const onCrash = (slot: ServerSlot) => {
      if (shuttingDown) return;
      history.faults.push({ kind: "server_crash", target: slot.name, at: Date.now(), durationMs: 0 });
      log(`server ${slot.name} exited on its own; restarting`);
      void sleep(1_000).then(() => (shuttingDown ? undefined : startWithRetries(slot, log).catch((e: unknown) => log(`restart of ${slot.name} failed: ${String(e)}`))));
    };
    for (const name of ["server-a", "server-b"]) {
      const env = serverEnv(proxiedUrl.toString(), { SVC_SECRET_KEY: SECRET, LOG_LEVEL: "warn" });
      if (env.AGENTQ_DATA_DIR) scratchDirs.push(env.AGENTQ_DATA_DIR);
      servers.push(serverSlot({ name, port: await freePort(), env, serverDir, bundle, onUnexpectedExit: onCrash }));
    }
    cleanups.push(async () => {
      shuttingDown = true;
      await Promise.all(servers.map((s) => s.stop()));
      for (const s of servers) {
        const exits = s.unexpectedExits();
        writeFileSync(join(outDir, `${s.name}.log`), `${s.outputTail()}\n${exits.length > 0 ? `unexpected exits:\n${JSON.stringify(exits, null, 1)}` : ""}`);
      }
    });
    // One server first (it applies the migrations), then the bootstrap, then the second.
    await servers[0]!.start();
    const bootEnv = serverEnv(directUrl.toString(), { SVC_SECRET_KEY: SECRET });
    if (bootEnv.AGENTQ_DATA_DIR) scratchDirs.push(bootEnv.AGENTQ_DATA_DIR);
    const { workspace_id: workspaceId, token: adminToken } = await runBootstrap(serverDir, bootEnv);
    await liftRateLimits(serverDir, bootEnv, workspaceId);
    await servers[1]!.start();
    const baseUrls = servers.map((s) => s.baseUrl);

    const adminCall = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const r = await callRest({ baseUrl: baseUrls[0]!, token: adminToken, method: "POST", path, body, timeoutMs: 10_000 });
      if (r.kind !== "response" || r.status !== 201 || r.body === null) throw new Error(`${path} failed: ${JSON.stringify(r)}`);
      return r.body;
    };
    const account = async (name: string) => String((await adminCall("/v1/ai-accounts", { friendly_name: name })).id);
    const credential = async (accountId: string, scopes: string[]) => String((await adminCall("/v1/credentials", { ai_account_id: accountId, tier: "operational", scopes, name: "faults" })).token);

    const recipientNames = Array.from({ length: nRecipients }, (_, i) => `recipient-${i}`);
    const recipientIds = await Promise.all(recipientNames.map(account));
    const producers: Producer[] = await Promise.all(
      Array.from({ length: nProducers }, async (_, i) => ({ name: `producer-${i}`, token: await credential(await account(`producer-${i}`), ["send"]), recipients: recipientNames, random: random.derive(`producer-${i}`) })),
    );
    // Consumer i reads recipient i mod R: with 8 consumers and 4 recipients, two compete for each.
    // Each may hand a message it holds to another recipient (hand-off needs the ack scope).
    const consumers: Consumer[] = await Promise.all(
      Array.from({ length: nConsumers }, async (_, i) => {
        const own = recipientNames[i % nRecipients]!;
        return { name: `consumer-${i}`, token: await credential(recipientIds[i % nRecipients]!, ["get_pending", "ack", "nack"]), random: random.derive(`consumer-${i}`), account: own, handOffTo: recipientNames.filter((n) => n !== own) };
      }),
    );

    // The workload, with faults.
    const workloadStart = Date.now();
    const ctl: WorkloadControl = { servers: baseUrls, produceUntil: workloadStart + options.workloadMs, mode: "chaos", stopConsumers: false, history, runTag: `s${options.seed}` };
    const pending = new Set<Promise<void>>();
    log(`workload: ${nProducers} producers, ${nConsumers} consumers over ${nRecipients} recipients, ${options.workloadMs / 1000} s; plan ${JSON.stringify(plan)}`);
    const producing = Promise.all(producers.map((p) => runProducer(p, ctl)));
    const consuming = Promise.all(consumers.map((c) => runConsumer(c, ctl, pending)));
    const schedule = scheduleFaults(plan, Math.max(1_000, options.workloadMs - 5_000), random.derive("faults"), options.leadWith ?? []);
    const terminateServerBackends = async () => {
      const rows = await admin`select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = 'agentq' and pid <> pg_backend_pid()`;
      return rows.length;
    };
    const { skipped } = await injectFaults(schedule, { servers, pg, proxy, terminateServerBackends }, random.derive("fault-targets"), workloadStart, ctl.produceUntil, history.faults, log);
    if (skipped > 0) log(`${skipped} planned faults did not start before the workload ended`);

    // The quiet phase: every fault undone, producers finish, consumers ack everything until nothing is live.
    proxy.setMode({ kind: "pass" });
    await Promise.all(servers.map((s) => startWithRetries(s, log)));
    await producing;
    ctl.mode = "drain";
    const drainStart = Date.now();
    log(`draining (${history.sends.length} sends)`);
    let quietChecks = 0;
    while (Date.now() - drainStart < drainTimeoutMs) {
      const live = await countLiveByState(db, workspaceId).then((byState) => Object.values(byState).reduce((a, b) => a + b, 0)).catch(() => -1);
      quietChecks = live === 0 && pending.size === 0 ? quietChecks + 1 : 0;
      if (quietChecks >= 2) break;
      await sleep(1_000);
    }
    const liveAtDrainEnd = await countLiveByState(db, workspaceId).catch(() => null);
    if (liveAtDrainEnd !== null && Object.keys(liveAtDrainEnd).length > 0) log(`the drain ended with messages live: ${JSON.stringify(liveAtDrainEnd)}`);
    ctl.stopConsumers = true;
    await consuming;
    await Promise.all([...pending]);
    const drainMs = Date.now() - drainStart;

    // Let the sealers finish, stop the servers, then read the database.
    for (let waited = 0; waited < 60_000 && (await countUnsealed(db, workspaceId)) > 0; waited += 500) await sleep(500);
    shuttingDown = true;
    await Promise.all(servers.map((s) => s.stop()));
    const state = await readFinalState(db, workspaceId);
    const report = checkRun(history, state);
    const meta: RunMeta = { seed: options.seed, workloadMs: options.workloadMs, drainMs, totalMs: Date.now() - startedAt, liveAtDrainEnd };
    const summary = formatSummary(history, report, meta) + (skipped > 0 ? `\n(${skipped} planned faults did not start before the workload ended)` : "");
    writeFileSync(join(outDir, "summary.txt"), `${summary}\n`);
    writeFileSync(join(outDir, "history.json"), JSON.stringify({ meta, plan, schedule, history, report }, null, 1));
    return { history, report, summary, meta, outDir, skippedFaults: skipped };
  } finally {
    shuttingDown = true;
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    // PostgreSQL's own log (the launcher writes it beside the data folder) goes with the history.
    try {
      copyFileSync(join(pgDir, "pg.log"), join(outDir, "postgres.log"));
    } catch {
      // no log: PostgreSQL never started
    }
    for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
  }
}
