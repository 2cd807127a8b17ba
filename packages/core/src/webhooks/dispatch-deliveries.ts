import type { CoreDeps } from "../deps.ts";
import type { WebhookTransport } from "../ports.ts";
import { retryDelayMs, type RetrySchedule } from "./retry-schedule.ts";
import { signDelivery, signingKeysAt } from "./signing.ts";
import { webhookAuditEntry } from "./webhook-audit.ts";
import { DELIVERY_EXHAUSTED_ACTIVITY, type ClaimedDelivery, type DeliveryRecord } from "./webhook.ts";

/** Settings of one dispatcher. */
export interface DispatchSettings {
  transport: WebhookTransport;
  /** Deliveries claimed (and attempted concurrently) per pass. */
  batchSize: number;
  /** How long a claim keeps other dispatchers off a row; must exceed `timeoutMs` comfortably. */
  leaseMs: number;
  /** Per-attempt timeout. */
  timeoutMs: number;
  retry: RetrySchedule;
  /** Uniform [0, 1) source for the jitter. */
  random: () => number;
}

/** Defaults: 20 per pass, 5 s timeout, 60 s claim lease. */
export const DEFAULT_DISPATCH_LIMITS = { batchSize: 20, timeoutMs: 5_000, leaseMs: 60_000 } as const;

/** What one pass did; `exhausted` are the deliveries that just went dead (the alert). */
export interface DispatchPass {
  claimed: number;
  delivered: number;
  failed: number;
  exhausted: DeliveryRecord[];
}

/**
 * The delivery body of an outbox row: `{ type, timestamp, data }` (Standard Webhooks' suggested
 * shape), where timestamp is when the event happened (the row's creation). The same bytes on
 * every attempt.
 */
export function deliveryBody(d: DeliveryRecord): string {
  return JSON.stringify({ type: d.eventType, timestamp: d.createdAt.toISOString(), data: d.payload });
}

/**
 * One dispatcher pass: claims up to `batchSize` due deliveries (SKIP LOCKED, leased for
 * `leaseMs`, so concurrent dispatchers never attempt one row at once), POSTs each, signed with
 * every key that signs now, and records the outcome under the claim token: 2xx delivered;
 * anything else (3xx too: redirects are not followed), a timeout, a refused destination or a
 * connection error is a failure, retried after the jittered backoff until the webhook's attempt
 * ceiling, then dead with the alert audit row `webhook.delivery_exhausted` in the same
 * transaction. A dispatcher that dies mid-attempt leaves the row leased; it is attempted again
 * when the lease runs out (at-least-once: receivers dedupe on webhook-id).
 */
export async function dispatchDueDeliveries(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets">, s: DispatchSettings): Promise<DispatchPass> {
  const claimToken = deps.ids.next();
  const claimed = await deps.stores.outbox.claimDue({ max: s.batchSize, leaseMs: s.leaseMs, claimToken });
  const pass: DispatchPass = { claimed: claimed.length, delivered: 0, failed: 0, exhausted: [] };
  await Promise.all(claimed.map((c) => attempt(deps, s, c, claimToken, pass)));
  return pass;
}

async function attempt(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets">, s: DispatchSettings, c: ClaimedDelivery, claimToken: string, pass: DispatchPass): Promise<void> {
  const d = c.delivery;
  const now = deps.clock.now();
  const body = deliveryBody(d);
  const headers = signDelivery({ pepper: deps.secrets.pepper, keys: signingKeysAt(c.signingKeys, now), id: d.id, timestampSeconds: Math.floor(now.getTime() / 1000), body });
  // The message's trace goes on to the receiver (W3C Trace Context), as in a claimed envelope.
  const result = await s.transport.post({ url: c.url, headers: d.traceparent === null ? { ...headers } : { ...headers, traceparent: d.traceparent }, body, timeoutMs: s.timeoutMs });
  if (result.kind === "response" && result.status >= 200 && result.status <= 299) {
    if (await deps.stores.outbox.recordSuccess({ workspaceId: d.workspaceId, deliveryId: d.id, claimToken, status: result.status })) pass.delivered++;
    return;
  }
  pass.failed++;
  const status = result.kind === "response" ? result.status : null;
  const error = result.kind === "response" ? `status_${result.status}` : result.reason;
  const attemptsAfter = d.attempts + 1;
  const exhausted = attemptsAfter >= c.maxAttempts;
  const dead = await deps.tx.run(async (stores) => {
    const row = await stores.outbox.recordFailure({ workspaceId: d.workspaceId, deliveryId: d.id, claimToken, status, error, retryInMs: exhausted ? null : retryDelayMs(s.retry, attemptsAfter, s.random()) });
    if (row === null || row.state !== "dead") return null;
    await stores.audit.append({
      entry: webhookAuditEntry(deps, { principal: null, requestId: null }, {
        workspaceId: d.workspaceId,
        occurredAt: deps.clock.now(),
        activity: DELIVERY_EXHAUSTED_ACTIVITY,
        webhookId: d.webhookId,
        messageId: d.messageId,
        details: { delivery_id: d.id, event_type: d.eventType, attempts: row.attempts, last_error: error, last_status: status },
      }),
    });
    return row;
  });
  if (dead !== null) pass.exhausted.push(dead);
}
