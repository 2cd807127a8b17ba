import type { BenchContext } from "./context.ts";
import { PAYLOAD } from "./fixture.ts";
import { apiClient, expectStatus, type ApiClient } from "./http-client.ts";
import { parties, LEVELS } from "./limit-scenarios.ts";
import { delay, runLoad } from "./load.ts";
import { preloadMessages } from "./raw-sql.ts";
import { perSecond, summarise } from "./stats.ts";

/** The body of a send to `recipient`. */
export function sendBody(recipient: string): unknown {
  return { envelope: { recipient: { friendly_name: recipient }, template: "directive" }, payload: PAYLOAD };
}

let keySeq = 0;
/** A fresh Idempotency-Key (unique within the run's database). */
export function newKey(prefix: string): string {
  keySeq += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${keySeq}`;
}

/** One send through REST; returns the message id. */
export async function sendOne(client: ApiClient, token: string, recipient: string, prefix: string): Promise<string> {
  const answer = expectStatus(await client.call(token, "POST", "/v1/messages/send", sendBody(recipient), { "idempotency-key": newKey(prefix) }), 201, "send");
  return answer.body.message_id as string;
}

/** S1: POST /v1/messages/send over keep-alive connections at 1, 8 and 32 in flight. */
export async function runSend(ctx: BenchContext): Promise<void> {
  const token = ctx.fixture.sender.token;
  for (const inFlight of LEVELS) {
    const client = apiClient(ctx.server.baseUrl, inFlight);
    try {
      await sendOne(client, token, "sink", "warm");
      ctx.log(`S1 send, ${inFlight} in flight, ${ctx.sizes.levelMs / 1000} s`);
      const sampler = sampleSealerLag(ctx);
      const cpuBefore = ctx.server.cpuMs();
      const r = await runLoad({ name: `S1@${inFlight}`, inFlight, maxOps: 10_000_000, maxMs: ctx.sizes.levelMs, op: () => sendOne(client, token, "sink", "s1").then(() => undefined), log: ctx.log });
      const lag = await sampler.stop();
      // The server's CPU per send: the level's requests and the sealing of their audit rows (the sampler waits for it).
      const cpuUs = ((ctx.server.cpuMs() - cpuBefore) * 1000) / r.count;
      const s = summarise(r.latencies);
      ctx.m.set(`S1.send@${inFlight}`, perSecond(r.count, r.elapsedMs));
      ctx.m.set(`S1.server_cpu_us@${inFlight}`, cpuUs);
      ctx.m.set(`S1.p50@${inFlight}`, s.p50);
      ctx.m.set(`S1.p99@${inFlight}`, s.p99);
      ctx.m.set(`S1.unsealed_max@${inFlight}`, lag.unsealedMax);
      ctx.m.set(`S1.unsigned_max@${inFlight}`, lag.unsignedMax);
      ctx.m.set(`S1.seal_catchup_ms@${inFlight}`, lag.catchUpMs);
      ctx.log(`  ${perSecond(r.count, r.elapsedMs).toFixed(0)} sends/s, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, server CPU ${cpuUs.toFixed(0)} µs per send`);
      ctx.log(`  sealer: at most ${lag.unsealedMax} rows unsealed and ${lag.unsignedMax} sealed rows of the workspace not yet in a checkpoint (${lag.samples} samples); caught up ${lag.catchUpMs.toFixed(0)} ms after the last send`);
    } finally {
      await client.close();
    }
  }
}

/** The fixture workspace's sealed rows its latest signed checkpoint does not cover yet (the tree's lag behind the chain). */
async function unsignedRows(ctx: BenchContext): Promise<number> {
  const [tree] = await ctx.sql<{ exists: boolean }[]>`select to_regclass('audit_checkpoints') is not null as exists`;
  if (tree?.exists !== true) return 0;
  const ws = ctx.fixture.workspaceId;
  const [row] = await ctx.sql<{ n: number }[]>`
    select (coalesce((select max(seq) from audit_chain where workspace_id = ${ws}), 0)
          - coalesce((select tree_size from audit_checkpoints where workspace_id = ${ws}), 0))::int as n`;
  return row?.n ?? 0;
}

/**
 * Samples the sealer's backlog every 250 ms while a load runs (issue 32: sealing keeps up with
 * the send rate): the largest number of unsealed audit rows and of sealed rows not yet in a
 * checkpoint; `stop` then waits (at most 60 s) for both to reach zero and reports how long that took.
 */
function sampleSealerLag(ctx: BenchContext): { stop(): Promise<{ unsealedMax: number; unsignedMax: number; samples: number; catchUpMs: number }> } {
  let running = true;
  let unsealedMax = 0;
  let unsignedMax = 0;
  let samples = 0;
  const loop = (async () => {
    while (running) {
      const [unsealed, unsigned] = await Promise.all([unsealedRows(ctx), unsignedRows(ctx)]);
      unsealedMax = Math.max(unsealedMax, unsealed);
      unsignedMax = Math.max(unsignedMax, unsigned);
      samples++;
      await delay(250);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      const started = performance.now();
      while (performance.now() - started < 60_000) {
        const [unsealed, unsigned] = await Promise.all([unsealedRows(ctx), unsignedRows(ctx)]);
        if (unsealed === 0 && unsigned === 0) break;
        await delay(50);
      }
      return { unsealedMax, unsignedMax, samples, catchUpMs: performance.now() - started };
    },
  };
}

interface Claimed {
  envelope: { message_id: string };
  lease: { lease_id: string };
}

/** Claims up to 100 of the caller's messages (no wait). */
async function claim(client: ApiClient, token: string): Promise<Claimed[]> {
  const answer = expectStatus(await client.call(token, "POST", "/v1/messages/get-pending", { max: 100, visibility_timeout: "PT600S" }), 200, "get-pending");
  return answer.body.items as Claimed[];
}

/** Whether this server has the batch ack route (POST /v1/messages/ack). */
export async function hasBatchAck(ctx: BenchContext): Promise<boolean> {
  const client = apiClient(ctx.server.baseUrl, 1);
  try {
    const answer = await client.call(ctx.fixture.account("drainbatch").token, "POST", "/v1/messages/ack", { items: [] });
    return answer.status !== 404 && answer.status !== 405;
  } finally {
    await client.close();
  }
}

/** Audit rows not sealed yet: the sealer's queue (migration 0010), or rows without a seal on a server from before it (`--server-dir`). */
async function unsealedRows(ctx: BenchContext): Promise<number> {
  const [queue] = await ctx.sql<{ exists: boolean }[]>`select to_regclass('audit_unsealed') is not null as exists`;
  const [row] = queue?.exists === true
    ? await ctx.sql<{ n: number }[]>`select count(*)::int as n from audit_unsealed`
    : await ctx.sql<{ n: number }[]>`select count(*)::int as n from audit_log where sealed_at is null`;
  return row?.n ?? 0;
}

/**
 * Waits (at most 10 minutes) until the server's background sealer has sealed every audit row,
 * so a drain measures the drain and not the sealing of a backlog a real sender would have had
 * sealed as it went (the pre-loaded `message.sent` rows arrive all at once).
 */
async function waitForSealer(ctx: BenchContext): Promise<void> {
  const started = performance.now();
  let lastLog = started;
  for (;;) {
    const n = await unsealedRows(ctx);
    if (n === 0) return;
    if (performance.now() - started > 10 * 60_000) {
      ctx.notes.push(`The sealer had ${n} audit rows left when a drain started (10-minute bound).`);
      return;
    }
    if (performance.now() - lastLog > 5_000) {
      ctx.log(`  waiting for the audit sealer: ${n} rows unsealed`);
      lastLog = performance.now();
    }
    await delay(250);
  }
}

/**
 * S2: a backlog of `drainCount` messages pre-loaded with SQL (and sealed by the server's audit
 * sealer before the clock starts), drained by 4 consumers over REST:
 * get-pending (max 100), then every message acknowledged — one request per message, or (batch)
 * one POST /v1/messages/ack per claimed batch. Messages/s from the first claim to the last ack.
 */
export async function runDrain(ctx: BenchContext, mode: "single" | "batch"): Promise<void> {
  const recipient = mode === "single" ? "drain" : "drainbatch";
  const id = mode === "single" ? "S2.drain" : "S2.drain-batch";
  const token = ctx.fixture.account(recipient).token;
  ctx.log(`${id}: pre-loading ${ctx.sizes.drainCount} messages`);
  await preloadMessages(ctx.sql, { ...parties(ctx, recipient), count: ctx.sizes.drainCount });
  await waitForSealer(ctx);
  ctx.log(`${id}: 4 consumers, get-pending max 100, ${mode === "single" ? "one ack request per message" : "one batch ack request per claim"}`);
  const client = apiClient(ctx.server.baseUrl, 4);
  let acked = 0;
  const cpuBefore = ctx.server.cpuMs();
  const started = performance.now();
  const deadline = started + ctx.sizes.drainMaxMs;
  const progress = setInterval(() => ctx.log(`  ${id}: ${acked} acknowledged, ${perSecond(acked, performance.now() - started).toFixed(0)}/s`), 5_000);
  const consumer = async () => {
    while (performance.now() < deadline) {
      const items = await claim(client, token);
      if (items.length === 0) return;
      if (mode === "single") {
        for (const item of items) {
          expectStatus(await client.call(token, "POST", `/v1/messages/${item.envelope.message_id}/ack`, { lease_id: item.lease.lease_id, outcome_summary: "ok" }), 200, "ack");
          acked += 1;
        }
      } else {
        const answer = expectStatus(
          await client.call(token, "POST", "/v1/messages/ack", { items: items.map((i) => ({ message_id: i.envelope.message_id, lease_id: i.lease.lease_id, outcome_summary: "ok" })) }),
          200,
          "batch ack",
        );
        const results = answer.body.results as { status: number }[];
        const bad = results.find((r) => r.status !== 200);
        if (bad !== undefined) throw new Error(`batch ack: an item answered ${JSON.stringify(bad)}`);
        acked += results.length;
      }
    }
  };
  try {
    await Promise.all([consumer(), consumer(), consumer(), consumer()]);
  } finally {
    clearInterval(progress);
    await client.close();
  }
  const elapsed = performance.now() - started;
  if (acked < ctx.sizes.drainCount) ctx.notes.push(`${id}: the drain hit its time bound after ${acked} of ${ctx.sizes.drainCount} messages; the rate covers those.`);
  // The server's CPU per message acknowledged: its claims and acks, and the sealing of the acks' audit rows done meanwhile.
  const cpuUs = ((ctx.server.cpuMs() - cpuBefore) * 1000) / acked;
  ctx.m.set(id, perSecond(acked, elapsed));
  ctx.m.set(`${id}.server_cpu_us`, cpuUs);
  ctx.log(`  ${acked} acknowledged in ${(elapsed / 1000).toFixed(1)} s: ${perSecond(acked, elapsed).toFixed(0)} messages/s, server CPU ${cpuUs.toFixed(0)} µs per message`);
}

/**
 * S3: 4 consumers long-poll (wait PT20S), each on its own recipient; one producer sends to them
 * in turn, `wakeGapMs` apart; latency from the send's response to the claim's response. A
 * second loop times an authenticated GET /v1/recipients at the same pace meanwhile.
 */
export async function runWakeup(ctx: BenchContext): Promise<void> {
  const recipients = ["wake0", "wake1", "wake2", "wake3"];
  const client = apiClient(ctx.server.baseUrl, recipients.length + 2);
  const sentAt = new Map<string, number>();
  const claimedAt = new Map<string, number>();
  const stop = new AbortController();
  const consumer = async (name: string) => {
    const token = ctx.fixture.account(name).token;
    while (!stop.signal.aborted) {
      let answer;
      try {
        answer = await client.call(token, "POST", "/v1/messages/get-pending", { max: 10, wait: "PT20S", visibility_timeout: "PT600S" }, {}, stop.signal);
      } catch (e) {
        if (stop.signal.aborted) return;
        throw e;
      }
      const at = performance.now();
      for (const item of expectStatus(answer, 200, "long poll").body.items as Claimed[]) claimedAt.set(item.envelope.message_id, at);
    }
  };
  ctx.log(`S3 wake-up: 4 long polls (PT20S), ${ctx.sizes.wakeSends} sends ${ctx.sizes.wakeGapMs} ms apart, GET /v1/recipients alongside`);
  const consumers = recipients.map((r) => consumer(r));
  // Let every consumer reach its wait before the first send.
  await delay(500);
  const getLatencies: number[] = [];
  const getter = (async () => {
    const token = ctx.fixture.sender.token;
    for (let i = 0; i < ctx.sizes.wakeSends; i++) {
      const t0 = performance.now();
      expectStatus(await client.call(token, "GET", "/v1/recipients"), 200, "GET /v1/recipients");
      getLatencies.push(performance.now() - t0);
      await delay(ctx.sizes.wakeGapMs);
    }
  })();
  const token = ctx.fixture.sender.token;
  for (let i = 0; i < ctx.sizes.wakeSends; i++) {
    const id = await sendOne(client, token, recipients[i % recipients.length] as string, "s3");
    sentAt.set(id, performance.now());
    await delay(ctx.sizes.wakeGapMs);
  }
  await getter;
  const waitUntil = performance.now() + 25_000;
  while (claimedAt.size < sentAt.size && performance.now() < waitUntil) await delay(50);
  stop.abort();
  try {
    await Promise.all(consumers);
  } finally {
    await client.close();
  }
  const latencies: number[] = [];
  for (const [id, at] of sentAt) {
    const claimed = claimedAt.get(id);
    if (claimed !== undefined) latencies.push(Math.max(0, claimed - at));
  }
  if (latencies.length < sentAt.size) ctx.notes.push(`S3: ${sentAt.size - latencies.length} of ${sentAt.size} messages were not claimed within 25 s of the last send.`);
  const wake = summarise(latencies);
  const get = summarise(getLatencies);
  ctx.m.set("S3.wake.p50", wake.p50);
  ctx.m.set("S3.wake.p99", wake.p99);
  ctx.m.set("S3.get.p50", get.p50);
  ctx.log(`  wake-up p50 ${wake.p50.toFixed(2)} ms, p99 ${wake.p99.toFixed(2)} ms; GET /v1/recipients p50 ${get.p50.toFixed(2)} ms`);
}
