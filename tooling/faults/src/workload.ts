import type { DeliveryRecord, HandOffRecord, RunHistory, SendRecord, SettleRecord } from "./history.ts";
import { callRest, isRetryable, resultLabel, type CallResult } from "./rest-client.ts";
import type { Random } from "./random.ts";

/** Visibility timeout of every claim: short, so expiry redelivery happens during the run. */
export const VISIBILITY_TIMEOUT_MS = 10_000;
const SEND_ATTEMPTS = 10;
const SETTLE_ATTEMPTS = 4;
const CALL_TIMEOUT_MS = 5_000;
const POLL_WAIT = "PT1S";

/** A producer: its credential and the recipients it sends to. */
export interface Producer {
  name: string;
  token: string;
  recipients: readonly string[];
  random: Random;
}

/** A consumer: its credential, for one recipient account that other consumers share. */
export interface Consumer {
  name: string;
  token: string;
  random: Random;
  /** The friendly name of the recipient account it reads for. */
  account: string;
  /** The other recipient accounts, to hand messages to. */
  handOffTo: readonly string[];
}

/** What the run controls while the workload runs. */
export interface WorkloadControl {
  servers: readonly string[];
  /** Producers start no new send after this (epoch ms). */
  produceUntil: number;
  /** "chaos": consumers ack, nack, sleep past leases and drop; "drain": they ack everything. */
  mode: "chaos" | "drain";
  /** Consumers stop when this turns true. */
  stopConsumers: boolean;
  history: RunHistory;
  /** A unique prefix of this run's Idempotency-Keys. */
  runTag: string;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Runs one producer until `produceUntil`, recording every send. */
export async function runProducer(p: Producer, ctl: WorkloadControl): Promise<void> {
  let n = 0;
  while (Date.now() < ctl.produceUntil) {
    const key = `${ctl.runTag}-${p.name}-${n++}`;
    const recipient = p.random.pick(p.recipients);
    const record = await sendWithRetries(p, ctl, key, recipient);
    ctl.history.sends.push(record);
    await sleep(p.random.int(20, 120));
  }
}

async function sendWithRetries(p: Producer, ctl: WorkloadControl, key: string, recipient: string): Promise<SendRecord> {
  const body = { envelope: { recipient: { friendly_name: recipient }, template: "directive", correlation_id: key }, payload: { directive_kind: "fault-run", summary: key, instructions: "ack me" } };
  const startedAt = Date.now();
  const first = p.random.int(0, ctl.servers.length - 1);
  const ids = new Set<string>();
  let last: CallResult | null = null;
  let attempts = 0;
  const send = (attempt: number) =>
    callRest({ baseUrl: ctl.servers[(first + attempt) % ctl.servers.length] as string, token: p.token, method: "POST", path: "/v1/messages/send", body, headers: { "Idempotency-Key": key }, timeoutMs: CALL_TIMEOUT_MS });
  for (let attempt = 0; attempt < SEND_ATTEMPTS; attempt++) {
    attempts++;
    last = await send(attempt);
    if (last.kind === "response" && last.status === 201) {
      const id = String(last.body?.message_id);
      ids.add(id);
      // Sometimes replay the key once more: it must name the same message.
      if (p.random.chance(0.05)) {
        attempts++;
        const again = await send(attempt + 1);
        if (again.kind === "response" && again.status === 201) ids.add(String(again.body?.message_id));
      }
      return { producer: p.name, key, outcome: "ok", messageId: id, messageIds: [...ids], attempts, code: null, startedAt, endedAt: Date.now() };
    }
    if (!isRetryable(last)) {
      return { producer: p.name, key, outcome: "failed", messageId: null, messageIds: [], attempts, code: resultLabel(last), startedAt, endedAt: Date.now() };
    }
    await sleep(Math.min(2_000, 100 * 2 ** attempt) + p.random.int(0, 100));
  }
  return { producer: p.name, key, outcome: "indeterminate", messageId: null, messageIds: [], attempts, code: last ? resultLabel(last) : null, startedAt, endedAt: Date.now() };
}

interface ClaimedItem {
  envelope: { message_id: string; correlation_id: string | null; delivery_count: number };
  lease: { lease_id: string; lease_expires_at: string };
}

/** Runs one consumer until `stopConsumers`; settles in the background (sleepers) are tracked in `pending`. */
export async function runConsumer(c: Consumer, ctl: WorkloadControl, pending: Set<Promise<void>>): Promise<void> {
  let turn = c.random.int(0, ctl.servers.length - 1);
  while (!ctl.stopConsumers) {
    const baseUrl = ctl.servers[turn++ % ctl.servers.length] as string;
    const r = await callRest({ baseUrl, token: c.token, method: "POST", path: "/v1/messages/get-pending", body: { max: 5, visibility_timeout: `PT${VISIBILITY_TIMEOUT_MS / 1000}S`, wait: POLL_WAIT }, timeoutMs: CALL_TIMEOUT_MS + 3_000 });
    const items = r.kind === "response" && r.status === 200 ? ((r.body?.items as ClaimedItem[] | undefined) ?? []) : null;
    const label = items === null ? resultLabel(r) : items.length === 0 ? "empty" : "ok";
    ctl.history.polls[label] = (ctl.history.polls[label] ?? 0) + 1;
    if (items === null) {
      await sleep(c.random.int(100, 300));
      continue;
    }
    const receivedAt = Date.now();
    const deliveries: DeliveryRecord[] = items.map((item) => ({
      consumer: c.name,
      messageId: item.envelope.message_id,
      leaseId: item.lease.lease_id,
      leaseExpiresAt: Date.parse(item.lease.lease_expires_at),
      deliveryCount: item.envelope.delivery_count,
      correlationId: item.envelope.correlation_id,
      receivedAt,
    }));
    ctl.history.deliveries.push(...deliveries);
    await Promise.all(deliveries.map((d) => handle(c, ctl, d, pending)));
  }
}

async function handle(c: Consumer, ctl: WorkloadControl, d: DeliveryRecord, pending: Set<Promise<void>>): Promise<void> {
  if (ctl.mode === "drain") return void (await settle(c, ctl, d, "ack", null, false));
  const roll = c.random.next();
  if (roll < 0.7) return void (await settle(c, ctl, d, "ack", null, false));
  if (roll < 0.75 && c.handOffTo.length > 0) {
    // Hand it to another recipient account: that account's consumers must get it, with its delivery count kept.
    const handed = await handOff(c, ctl, d, c.random.pick(c.handOffTo));
    // Refused while the lease still holds (it cannot be, barring a bug): settle it as an ack would.
    if (handed.outcome === "refused" && handed.code === "SVC_RECIPIENT_RESOLUTION_FAILED") await settle(c, ctl, d, "ack", null, false);
    return;
  }
  if (roll < 0.75) return void (await settle(c, ctl, d, "ack", null, false));
  if (roll < 0.85) {
    const redeliverAfterMs = c.random.int(0, 3) * 1000;
    const nacked = await settle(c, ctl, d, "nack", redeliverAfterMs, false);
    // A nack refused (e.g. SVC_NACK_RATE_LIMITED within 30 s of the last one) leaves the lease held: ack it.
    if (nacked.outcome === "refused" && nacked.code === "SVC_NACK_RATE_LIMITED") await settle(c, ctl, d, "ack", null, false);
    return;
  }
  if (roll < 0.9) {
    // Sleep past the lease, then ack: it must be refused, and the message redelivered to someone.
    const sleeper = (async () => {
      await sleep(VISIBILITY_TIMEOUT_MS + c.random.int(500, 2_000));
      await settle(c, ctl, d, "ack", null, true);
    })();
    pending.add(sleeper);
    void sleeper.finally(() => pending.delete(sleeper));
    return;
  }
  if (roll < 0.96) {
    await sleep(c.random.int(200, 3_000));
    return void (await settle(c, ctl, d, "ack", null, false));
  }
  // Drop it: never settled, as if the consumer died; the lease expires and it comes back.
}

/** Acks or nacks one delivery, retrying the same lease on network errors and 5xx only. */
async function settle(c: Consumer, ctl: WorkloadControl, d: DeliveryRecord, kind: "ack" | "nack", redeliverAfterMs: number | null, afterSleepingPastLease: boolean): Promise<SettleRecord> {
  const sentAt = Date.now();
  const body = kind === "ack" ? { lease_id: d.leaseId, outcome_summary: "done" } : { lease_id: d.leaseId, redeliver_after: `PT${(redeliverAfterMs ?? 0) / 1000}S`, reason: "fault run" };
  let sawUnknown = false;
  let last: CallResult | null = null;
  const first = c.random.int(0, ctl.servers.length - 1);
  for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
    last = await callRest({ baseUrl: ctl.servers[(first + attempt) % ctl.servers.length] as string, token: c.token, method: "POST", path: `/v1/messages/${d.messageId}/${kind}`, body, timeoutMs: CALL_TIMEOUT_MS });
    if (last.kind === "response" && last.status === 200) {
      const at = kind === "ack" ? last.body?.acknowledged_at : last.body?.available_at;
      return record(c, ctl, d, kind, "ok", null, redeliverAfterMs, typeof at === "string" ? Date.parse(at) : null, afterSleepingPastLease, sentAt);
    }
    if (last.kind === "network" || last.status >= 500) {
      sawUnknown = true;
      await sleep(200 + c.random.int(0, 200));
      continue;
    }
    // A refusal after an attempt whose fate is unknown may be that attempt's own success (a
    // nack that landed leaves the lease no longer held): the outcome is unknown.
    return record(c, ctl, d, kind, sawUnknown && kind === "nack" ? "indeterminate" : "refused", resultLabel(last), redeliverAfterMs, null, afterSleepingPastLease, sentAt);
  }
  return record(c, ctl, d, kind, "indeterminate", last ? resultLabel(last) : null, redeliverAfterMs, null, afterSleepingPastLease, sentAt);
}

function record(c: Consumer, ctl: WorkloadControl, d: DeliveryRecord, kind: "ack" | "nack", outcome: SettleRecord["outcome"], code: string | null, redeliverAfterMs: number | null, serverAt: number | null, afterSleepingPastLease: boolean, sentAt: number): SettleRecord {
  const r: SettleRecord = { consumer: c.name, kind, messageId: d.messageId, leaseId: d.leaseId, outcome, code, redeliverAfterMs, serverAt, afterSleepingPastLease, sentAt, answeredAt: Date.now() };
  ctl.history.settles.push(r);
  return r;
}

/** Hands one delivery to another recipient account, retrying the same lease on network errors and 5xx only. */
async function handOff(c: Consumer, ctl: WorkloadControl, d: DeliveryRecord, to: string): Promise<HandOffRecord> {
  const sentAt = Date.now();
  let sawUnknown = false;
  let last: CallResult | null = null;
  const first = c.random.int(0, ctl.servers.length - 1);
  const done = (outcome: HandOffRecord["outcome"], code: string | null, serverAt: number | null): HandOffRecord => {
    const r: HandOffRecord = { consumer: c.name, messageId: d.messageId, leaseId: d.leaseId, from: c.account, to, outcome, code, serverAt, sentAt, answeredAt: Date.now() };
    ctl.history.handOffs.push(r);
    return r;
  };
  for (let attempt = 0; attempt < SETTLE_ATTEMPTS; attempt++) {
    last = await callRest({ baseUrl: ctl.servers[(first + attempt) % ctl.servers.length] as string, token: c.token, method: "POST", path: `/v1/messages/${d.messageId}/hand-off`, body: { lease_id: d.leaseId, to: { friendly_name: to }, note: "fault run" }, timeoutMs: CALL_TIMEOUT_MS });
    if (last.kind === "response" && last.status === 200) {
      const at = last.body?.handed_off_at;
      return done("ok", null, typeof at === "string" ? Date.parse(at) : null);
    }
    if (last.kind === "network" || last.status >= 500) {
      sawUnknown = true;
      await sleep(200 + c.random.int(0, 200));
      continue;
    }
    // A refusal after an attempt whose fate is unknown may be that attempt's own success (the
    // message is no longer the caller's: 404): the outcome is unknown.
    return done(sawUnknown ? "indeterminate" : "refused", resultLabel(last), null);
  }
  return done("indeterminate", last ? resultLabel(last) : null, null);
}
