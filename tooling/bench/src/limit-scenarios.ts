import { ulidSource } from "@agentq/core";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import type { BenchContext } from "./context.ts";
import { PAYLOAD } from "./fixture.ts";
import { runLoad } from "./load.ts";
import { ackRaw, claimRaw, insertSendRows, preloadMessages, type RawParties } from "./raw-sql.ts";
import { perSecond, summarise } from "./stats.ts";

/** The raw-SQL parties of a recipient of the fixture (the sender is always `producer`). */
export function parties(ctx: BenchContext, recipient: string): RawParties {
  const r = ctx.fixture.account(recipient);
  return { workspaceId: ctx.fixture.workspaceId, senderId: ctx.fixture.sender.id, senderName: ctx.fixture.sender.name, recipientId: r.id, recipientName: r.name };
}

/** Concurrency levels of L1 and S1 (AGENTQ_BENCH_LEVELS=1,8 picks some, to profile one level alone). */
export const LEVELS: readonly number[] = process.env.AGENTQ_BENCH_LEVELS ? process.env.AGENTQ_BENCH_LEVELS.split(",").map(Number) : [1, 8, 32];

/**
 * L1, the PostgreSQL limit, in the limit database (same server, same schema): the rows of a send
 * inserted directly at 1, 8 and 32 in flight (one statement per transaction), then a drain of
 * the backlog as raw SQL (4 workers, claim 100 + ack the batch in one statement).
 */
export async function runLimit(ctx: BenchContext): Promise<void> {
  const pool = postgres(ctx.db.limitUrl, { max: 32, onnotice: () => undefined, connection: { application_name: "agentq-bench-l1" } });
  const ids = ulidSource();
  const p = parties(ctx, "l1");
  try {
    for (const inFlight of LEVELS) {
      ctx.log(`L1 send rows, ${inFlight} in flight, ${ctx.sizes.levelMs / 1000} s`);
      const r = await runLoad({ name: `L1@${inFlight}`, inFlight, maxOps: 10_000_000, maxMs: ctx.sizes.levelMs, op: () => insertSendRows(pool, ids, p), log: ctx.log });
      const s = summarise(r.latencies);
      ctx.m.set(`L1.send@${inFlight}`, perSecond(r.count, r.elapsedMs));
      ctx.m.set(`L1.send.p50@${inFlight}`, s.p50);
      ctx.log(`  ${perSecond(r.count, r.elapsedMs).toFixed(0)} rows/s, p50 ${s.p50.toFixed(2)} ms`);
    }
    ctx.log(`L1 drain: pre-loading ${ctx.sizes.drainCount} messages`);
    await preloadMessages(pool, { ...p, count: ctx.sizes.drainCount });
    const [{ backlog } = { backlog: 0 }] = await pool<{ backlog: number }[]>`select count(*)::int as backlog from messages where workspace_id = ${p.workspaceId} and recipient_id = ${p.recipientId} and state = 'pending'`;
    ctx.log(`L1 drain: ${backlog} messages, 4 workers, claim 100 + ack the batch as raw SQL`);
    const started = performance.now();
    const deadline = started + ctx.sizes.drainMaxMs;
    let acked = 0;
    const worker = async () => {
      while (performance.now() < deadline) {
        const claimed = await claimRaw(pool, ids, { ...p, max: 100 });
        if (claimed.length === 0) return;
        const n = await ackRaw(pool, ids, { ...p, items: claimed });
        acked += n;
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const rate = perSecond(acked, performance.now() - started);
    ctx.m.set("L1.drain", rate);
    ctx.log(`  ${acked} acknowledged, ${rate.toFixed(0)} messages/s`);
  } finally {
    await pool.end({ timeout: 5 });
  }
}

/** The pgbench binary: PGBENCH, else the newest /usr/lib/postgresql/<v>/bin/pgbench, else null. */
function findPgbench(): string | null {
  if (process.env.PGBENCH && existsSync(process.env.PGBENCH)) return process.env.PGBENCH;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "pgbench")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? null : join(root, versions[0], "bin", "pgbench");
}

const PGBENCH_SCRIPT = `with ids as (select gen_random_uuid()::text as mid, gen_random_uuid()::text as aid, now() as t),
message as (
  insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, correlation_id, payload, state, accepted_at, expires_at, visible_at)
  select :ws, ids.mid, :sender, 'producer', :recipient, 'sink', 'directive', 1, null, :payload::jsonb, 'pending', ids.t, ids.t + interval '7 days', ids.t from ids
  returning id
),
audit as (
  insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
  select :ws, ids.aid, ids.t, 'message.sent', :sender, null, 'message', ids.mid, ids.mid, '{"template":"directive","priority":"normal"}'::jsonb, false, ids.aid from ids
),
idempotency as (
  insert into idempotency_keys (workspace_id, account_id, key, fingerprint, request_id, status, body_text, created_at, expires_at)
  select :ws, :sender, 'pgbench-' || ids.mid, md5(ids.mid), ids.aid, 201, :payload, ids.t, ids.t + interval '1 day' from ids
)
select 1;
`;

/** pgbench with the send rows as a custom script, 32 clients, prepared statements; null when no pgbench binary exists. */
export async function runPgbench(ctx: BenchContext): Promise<void> {
  const bin = findPgbench();
  if (bin === null) {
    ctx.notes.push("pgbench: no binary found (set PGBENCH); skipped.");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "agentq-bench-pgbench-"));
  const script = join(dir, "send-rows.sql");
  writeFileSync(script, PGBENCH_SCRIPT);
  const url = new URL(ctx.db.limitUrl);
  const p = parties(ctx, "sink");
  const env = { ...process.env, PGHOST: url.hostname, PGPORT: url.port || "5432", PGUSER: decodeURIComponent(url.username), PGPASSWORD: decodeURIComponent(url.password), PGDATABASE: url.pathname.slice(1) };
  const args = ["-n", "-M", "prepared", "-c", "32", "-j", "2", "-T", String(ctx.sizes.pgbenchSeconds), "-f", script, "-D", `ws=${p.workspaceId}`, "-D", `sender=${p.senderId}`, "-D", `recipient=${p.recipientId}`, "-D", `payload=${JSON.stringify(PAYLOAD)}`];
  ctx.log(`pgbench (${bin}): the send rows, 32 clients, ${ctx.sizes.pgbenchSeconds} s`);
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(bin, args, { env, stdio: ["ignore", "pipe", "pipe"] });
      let text = "";
      child.stdout.on("data", (c: Buffer) => (text += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (text += c.toString("utf8")));
      const timer = setTimeout(() => child.kill("SIGKILL"), (ctx.sizes.pgbenchSeconds + 60) * 1000);
      child.once("error", reject);
      child.once("exit", (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(text);
        else reject(new Error(`pgbench exited with ${code}:\n${text.slice(-2000)}`));
      });
    });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out) ?? /tps = ([\d.]+)/.exec(out);
    const latency = /latency average = ([\d.]+) ms/.exec(out);
    if (tps) ctx.m.set("L1.pgbench@32", Number(tps[1]));
    if (latency) ctx.m.set("L1.pgbench.avg@32", Number(latency[1]));
    ctx.log(`  ${tps?.[1] ?? "?"} tps, latency average ${latency?.[1] ?? "?"} ms`);
  } catch (e) {
    ctx.notes.push(`pgbench failed: ${(e as Error).message.split("\n").slice(0, 3).join(" ")}`);
    ctx.log(`  pgbench failed: ${(e as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
