import type { BenchContext } from "./context.ts";
import { apiClient, expectStatus } from "./http-client.ts";
import { delay, runLoad } from "./load.ts";
import { sendOne } from "./rest-scenarios.ts";
import { perSecond } from "./stats.ts";

interface Claimed {
  envelope: { message_id: string };
  lease: { lease_id: string };
}

/**
 * S6: `count` messages sent (32 in flight) while 4 consumers claim (max 100, long-polling PT5S
 * when the queue is empty) and acknowledge them (the batch route when the server has it, else
 * one request per message). Throughput of the first and of the last tenth (100,000 of
 * 1,000,000) by acknowledgement time; the server's peak RSS.
 */
export async function runSoak(ctx: BenchContext, p: { count: number; maxMs: number; batchAck: boolean }): Promise<void> {
  const window = Math.max(1, Math.min(100_000, Math.floor(p.count / 10)));
  const token = ctx.fixture.account("soak").token;
  const client = apiClient(ctx.server.baseUrl, 32 + 4);
  const stop = new AbortController();
  const started = performance.now();
  const deadline = started + p.maxMs;
  let acked = 0;
  let firstWindowEnd = Number.NaN;
  let lastWindowStart = Number.NaN;
  let lastWindowEnd = Number.NaN;
  let rssMax = 0;
  const countAcks = (n: number) => {
    const before = acked;
    acked += n;
    const now = performance.now();
    if (before < window && acked >= window) firstWindowEnd = now;
    if (before < p.count - window && acked >= p.count - window) lastWindowStart = now;
    if (acked >= p.count && Number.isNaN(lastWindowEnd)) {
      lastWindowEnd = now;
      stop.abort();
    }
  };
  let lastAcked = 0;
  // The audit rows waiting for the sealer (issue 32: sealing keeps up, so the backlog stays bounded).
  let unsealedMax = 0;
  let unsealedLast = 0;
  const progress = setInterval(() => {
    void unsealedBacklog(ctx).then((n) => {
      unsealedLast = n;
      if (n > unsealedMax) unsealedMax = n;
    }, () => undefined);
    const rss = ctx.server.rssMb();
    if (rss > rssMax) rssMax = rss;
    const recent = acked - lastAcked;
    lastAcked = acked;
    const oldest = client.oldestInFlight();
    ctx.log(`  S6: ${acked} of ${p.count} acknowledged, ${perSecond(acked, performance.now() - started).toFixed(0)}/s overall, ${(recent / 10).toFixed(0)}/s in the last 10 s, server RSS ${rss.toFixed(0)} MB, ${unsealedLast} audit rows unsealed; oldest request in flight: ${oldest ?? "none"}`);
    // What the database is doing: statements running for over a second, autovacuum (a stall's cause).
    void describeDatabaseWork(ctx).then((lines) => lines.forEach((l) => ctx.log(`    ${l}`)), (e: unknown) => ctx.log(`    (pg_stat_activity: ${String(e)})`));
  }, 10_000);
  const consumer = async () => {
    while (!stop.signal.aborted && performance.now() < deadline) {
      let answer;
      try {
        answer = await client.call(token, "POST", "/v1/messages/get-pending", { max: 100, wait: "PT5S", visibility_timeout: "PT600S" }, {}, stop.signal);
      } catch (e) {
        if (stop.signal.aborted) return;
        throw e;
      }
      const items = expectStatus(answer, 200, "get-pending").body.items as Claimed[];
      if (items.length === 0) continue;
      if (p.batchAck) {
        const res = expectStatus(
          await client.call(token, "POST", "/v1/messages/ack", { items: items.map((i) => ({ message_id: i.envelope.message_id, lease_id: i.lease.lease_id, outcome_summary: "ok" })) }),
          200,
          "batch ack",
        );
        countAcks((res.body.results as { status: number }[]).filter((r) => r.status === 200).length);
      } else {
        for (const item of items) {
          expectStatus(await client.call(token, "POST", `/v1/messages/${item.envelope.message_id}/ack`, { lease_id: item.lease.lease_id, outcome_summary: "ok" }), 200, "ack");
          countAcks(1);
        }
      }
    }
  };
  ctx.log(`S6 soak: ${p.count} messages sent (32 in flight), claimed and acknowledged (4 consumers, ${p.batchAck ? "batch ack" : "one ack per message"}); bound ${(p.maxMs / 60_000).toFixed(0)} min`);
  // A consumer's failure ends the senders too (and reaches the caller, which stops the server), never an unhandled rejection.
  // A holder, not a local: the closures assign it, which narrowing would not see.
  const consumerFailure: { error: Error | null } = { error: null };
  const consumers = [consumer(), consumer(), consumer(), consumer()].map((c) =>
    c.catch((e: unknown) => {
      consumerFailure.error ??= e instanceof Error ? e : new Error(String(e));
      stop.abort();
    }),
  );
  const send = async () => {
    if (consumerFailure.error !== null) throw consumerFailure.error;
    await sendOne(client, ctx.fixture.sender.token, "soak", "s6");
  };
  try {
    await runLoad({ name: "S6 send", inFlight: 32, maxOps: p.count, maxMs: p.maxMs, op: send, log: () => undefined });
    while (!stop.signal.aborted && performance.now() < deadline) await delay(200);
  } finally {
    stop.abort();
    await Promise.all(consumers);
    clearInterval(progress);
    await client.close();
  }
  if (consumerFailure.error !== null) throw consumerFailure.error;
  if (acked < p.count) ctx.notes.push(`S6: the soak hit its time bound after ${acked} of ${p.count} acknowledgements.`);
  const first = perSecond(window, firstWindowEnd - started);
  const last = perSecond(window, lastWindowEnd - lastWindowStart);
  ctx.m.set("S6.first", first);
  ctx.m.set("S6.last", last);
  ctx.m.set("S6.window", window);
  ctx.m.set("S6.total", acked);
  ctx.m.set("S6.elapsed_s", (performance.now() - started) / 1000);
  ctx.m.set("S6.rss_peak_mb", Math.max(ctx.server.rssPeakMb(), rssMax));
  ctx.m.set("S6.unsealed_max", unsealedMax);
  // What the audit tables hold at the end (the soak's decline was audit_log's bloat: docs/performance.md).
  const [audit] = await ctx.sql<{ mb: number; dead: number; updated: number }[]>`
    select coalesce(sum(pg_total_relation_size(relid)), 0)::float8 / 1048576 as mb, coalesce(sum(n_dead_tup), 0)::float8 as dead, coalesce(sum(n_tup_upd), 0)::float8 as updated
    from pg_stat_user_tables where relname in ('audit_log', 'audit_chain', 'audit_unsealed')`;
  ctx.m.set("S6.audit_mb", audit?.mb ?? Number.NaN);
  ctx.m.set("S6.audit_dead_tuples", audit?.dead ?? Number.NaN);
  ctx.m.set("S6.audit_updated_tuples", audit?.updated ?? Number.NaN);
  ctx.log(`  first ${window}: ${first.toFixed(0)}/s, last ${window}: ${last.toFixed(0)}/s, server RSS peak ${ctx.server.rssPeakMb().toFixed(0)} MB; audit tables ${(audit?.mb ?? 0).toFixed(0)} MB, ${audit?.dead ?? 0} dead tuples, ${audit?.updated ?? 0} updated`);
}

/** Audit rows not yet linked by the sealer, across the run's database (its queue table, `audit_unsealed`). */
async function unsealedBacklog(ctx: BenchContext): Promise<number> {
  const [row] = await ctx.sql<{ n: number }[]>`select count(*)::int as n from audit_unsealed`;
  return row?.n ?? 0;
}

/** The run database's statements running for over a second and its autovacuum workers, one line each. */
async function describeDatabaseWork(ctx: BenchContext): Promise<string[]> {
  const rows = await ctx.sql<{ pid: number; app: string; kind: string; state: string; wait: string; age: number; xact_age: number; query: string }[]>`
    select pid, application_name as app, backend_type as kind, coalesce(state, '') as state,
      coalesce(wait_event_type || ':' || wait_event, '') as wait,
      coalesce(extract(epoch from now() - query_start), 0)::float8 as age,
      coalesce(extract(epoch from now() - xact_start), 0)::float8 as xact_age,
      left(regexp_replace(query, '[[:space:]]+', ' ', 'g'), 160) as query
    from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()
      and (backend_type = 'autovacuum worker' or (state <> 'idle' and now() - coalesce(xact_start, query_start) > interval '1 second'))
    order by query_start`;
  return rows.map((r) => `pid ${r.pid} ${r.kind}/${r.app} ${r.state} ${r.wait} query ${r.age.toFixed(1)} s xact ${r.xact_age.toFixed(1)} s: ${r.query}`);
}
