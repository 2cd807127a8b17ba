// `pnpm bench:receipts [--rows N] [--requests N]`: the transparency log at scale (issue 32). One
// workspace of the production server (the bundle, as `pnpm bench` runs it) gets N audit rows
// (default 1,000,000) written straight into audit_log; the server's own sealer links and trees
// them (its rate is the figure "sealing keeps up"); then the REST routes serve inclusion and
// consistency proofs at random positions, and the run reports their latency and how many stored
// hashes each read (pg_stat_user_tables on audit_tree_hashes): O(log n) means a few dozen at a
// million rows, not thousands. Progress on stderr, the figures as JSON on stdout.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildGoVerifier } from "@agentq/server/testing";
import postgres from "postgres";
import { apiClient, expectStatus, type ApiClient } from "./http-client.ts";
import { UNLIMITED } from "./fixture.ts";
import { openBenchDatabase } from "./postgres-target.ts";
import { bootstrap, startServer } from "./server-process.ts";
import { summarise } from "./stats.ts";

const USAGE = "usage: pnpm bench:receipts [--rows N (1000 to 5000000, default 1000000)] [--requests N (10 to 10000, default 300)]";
const INSERT_CHUNK = 100_000;
const AGENTQ_BIN = fileURLToPath(new URL("../../../apps/cli/bin/agentq.js", import.meta.url));

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { rows: { type: "string", default: "1000000" }, requests: { type: "string", default: "300" } }, strict: true }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const rows = Number(values.rows);
  const requests = Number(values.requests);
  if (!Number.isInteger(rows) || rows < 1_000 || rows > 5_000_000 || !Number.isInteger(requests) || requests < 10 || requests > 10_000) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const t0 = Date.now();
  const log = (text: string) => process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(7)} s] ${text}\n`);
  const db = await openBenchDatabase(log);
  const sql = postgres(db.url, { max: 2, onnotice: () => undefined });
  const server = await startServer(db.url);
  const api = apiClient(server.baseUrl, 4);
  try {
    const ws = await bootstrap(server);
    // The plan's per-minute limits lifted, as the main benchmark's fixture does: the proofs are measured, not the limiter.
    await sql`insert into workspace_plans (workspace_id, plan, overrides, updated_at) values (${ws.workspace_id}, 'enterprise', ${sql.json(UNLIMITED)}::jsonb, now())
              on conflict (workspace_id) do update set plan = 'enterprise', overrides = excluded.overrides, updated_at = now()`;
    log(`server ${server.baseUrl}, workspace ${ws.workspace_id}; writing ${rows.toLocaleString("en")} audit rows`);
    const before = await sealedCount(sql, ws.workspace_id);
    // The checkpoint a client kept before the traffic: the consistency bundle below proves the
    // tree after the million rows extends it, checked by both offline verifiers.
    let oldNote: string | null = null;
    for (let tries = 0; oldNote === null; tries++) {
      // The bootstrap's own rows are sealed within a pass or two.
      await new Promise((r) => setTimeout(r, 500));
      const answer = await api.call(ws.token, "GET", "/v1/audit-log/checkpoint");
      if (answer.status === 200) oldNote = String(answer.body.raw);
      else if (tries > 60) expectStatus(answer, 200, "first checkpoint");
    }
    for (let from = 1; from <= rows; from += INSERT_CHUNK) {
      const to = Math.min(rows, from + INSERT_CHUNK - 1);
      await sql`
        insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
        select ${ws.workspace_id}, 'B' || lpad(i::text, 12, '0'), now() + i * interval '1 microsecond', 'message.sent', ${ws.ai_account_id}, null, 'message', 'bench', null, '{}', false, null
        from generate_series(${from}::int, ${to}::int) i`;
    }
    log("written; the server's sealer links and trees them");
    const target = before + rows;
    const sealStart = Date.now();
    let sealed = before;
    for (;;) {
      await new Promise((r) => setTimeout(r, 2_000));
      sealed = await sealedCount(sql, ws.workspace_id);
      if (sealed >= target) break;
      log(`sealed ${sealed.toLocaleString("en")} of ${target.toLocaleString("en")}`);
      if (Date.now() - sealStart > 60 * 60_000) throw new Error("sealing took over an hour");
    }
    const sealSeconds = (Date.now() - sealStart) / 1000;
    const note = await checkpointNote(api, ws.token);
    const treeSize = Number(note.split("\n")[1]);
    const bundleVerdicts = await verifyBundle(server.baseUrl, api, ws.token, oldNote, note);
    log(`consistency bundle ${bundleVerdicts.from} -> ${bundleVerdicts.to}: agentq receipt verify ${bundleVerdicts.cli}, Go verifier ${bundleVerdicts.go}`);
    log(`sealed ${rows.toLocaleString("en")} rows in ${sealSeconds.toFixed(1)} s; checkpoint tree size ${treeSize}`);

    const random = (n: number) => 1 + Math.floor(Math.random() * n);
    const inclusion = await measure(sql, requests, async () => {
      const answer = await api.call(ws.token, "GET", `/v1/audit-log/proof/inclusion?seq=${random(treeSize)}&tree_size=${treeSize}`);
      return (expectStatus(answer, 200, "inclusion proof").body.hashes as unknown[]).length;
    });
    const consistency = await measure(sql, requests, async () => {
      const from = random(treeSize - 1);
      const answer = await api.call(ws.token, "GET", `/v1/audit-log/proof/consistency?from=${from}&to=${treeSize}`);
      return (expectStatus(answer, 200, "consistency proof").body.hashes as unknown[]).length;
    });
    const figures = {
      rows,
      tree_size: treeSize,
      seal: { seconds: Number(sealSeconds.toFixed(1)), rows_per_second: Math.round(rows / sealSeconds) },
      inclusion,
      consistency,
      log2_tree_size: Number(Math.log2(treeSize).toFixed(1)),
      consistency_bundle: bundleVerdicts,
      postgres: db.version,
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
    return 0;
  } finally {
    await api.close();
    await server.stop();
    await sql.end({ timeout: 5 });
    await db.close();
  }
}

/** The latest checkpoint as the route serves it: the signed note (origin, tree size, root hash, signatures). */
async function checkpointNote(api: ApiClient, token: string): Promise<string> {
  return String(expectStatus(await api.call(token, "GET", "/v1/audit-log/checkpoint"), 200, "checkpoint").body.raw);
}

/**
 * The consistency bundle between the checkpoint kept before the rows and the latest one, as a
 * client assembles it (docs/receipts.md), checked offline by `agentq receipt verify` and by the
 * Go verifier with the log key the server publishes.
 * @throws when either verifier refuses it.
 */
async function verifyBundle(baseUrl: string, api: ApiClient, token: string, oldNote: string, newNote: string): Promise<{ from: number; to: number; cli: string; go: string }> {
  const from = Number(oldNote.split("\n")[1]);
  const to = Number(newNote.split("\n")[1]);
  const consistency = expectStatus(await api.call(token, "GET", `/v1/audit-log/proof/consistency?from=${from}&to=${to}`), 200, "consistency proof").body;
  const key = (await (await fetch(`${baseUrl}/.well-known/agentq-log-key`)).text()).trim().split("\n")[0] ?? "";
  const dir = mkdtempSync(join(tmpdir(), "agentq-bench-receipts-"));
  try {
    const bundle = join(dir, "bundle.json");
    const keyFile = join(dir, "log-key.txt");
    writeFileSync(bundle, JSON.stringify({ old_checkpoint: oldNote, new_checkpoint: newNote, consistency }));
    writeFileSync(keyFile, `${key}\n`);
    const cli = spawnSync(process.execPath, [AGENTQ_BIN, "receipt", "verify", bundle, "--key", keyFile], { encoding: "utf8" });
    const go = spawnSync(buildGoVerifier(), ["-key", key, "consistency", bundle], { encoding: "utf8" });
    const cliOut = `exit ${cli.status}: ${cli.stdout.trim()}`;
    const goOut = `exit ${go.status}: ${go.stdout.trim()}`;
    if (cli.status !== 0 || go.status !== 0) throw new Error(`the consistency bundle ${from} -> ${to} was refused: agentq ${cliOut} ${cli.stderr}; Go ${goOut} ${go.stderr}`);
    return { from, to, cli: cliOut, go: goOut };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sealedCount(sql: postgres.Sql, workspaceId: string): Promise<number> {
  const [row] = await sql<{ n: string | null }[]>`select max(seq) as n from audit_chain where workspace_id = ${workspaceId}`;
  return Number(row?.n ?? 0);
}

/** Runs `request` `count` times one after another: latency, proof length, and stored hash rows read per request. */
async function measure(sql: postgres.Sql, count: number, request: () => Promise<number>): Promise<{ requests: number; p50_ms: number; p99_ms: number; hashes_per_proof: number; hash_rows_read_per_request: number }> {
  const readBefore = await hashRowsRead(sql);
  const latencies: number[] = [];
  let hashes = 0;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    hashes += await request();
    latencies.push(performance.now() - start);
  }
  // The statistics reach the shared counters when the server's transactions end; give them a moment.
  await new Promise((r) => setTimeout(r, 1_500));
  const read = (await hashRowsRead(sql)) - readBefore;
  const summary = summarise(latencies);
  return { requests: count, p50_ms: round(summary.p50), p99_ms: round(summary.p99), hashes_per_proof: round(hashes / count), hash_rows_read_per_request: round(read / count) };
}

async function hashRowsRead(sql: postgres.Sql): Promise<number> {
  return sql.begin(async (tx) => {
    await tx`select pg_stat_clear_snapshot()`;
    const [row] = await tx<{ n: string }[]>`
      select coalesce(t.seq_tup_read, 0) + coalesce((select sum(pg_stat_get_tuples_returned(i.indexrelid)) from pg_index i where i.indrelid = t.relid), 0) as n
      from pg_stat_user_tables t where t.relname = 'audit_tree_hashes'`;
    return Number(row?.n ?? 0);
  });
}

const round = (n: number) => Math.round(n * 10) / 10;

process.exitCode = await main();
