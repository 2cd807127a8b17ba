// Loaded only when METRICS_PORT is set (`loadMetrics` imports this file dynamically), so a server
// without metrics never loads prom-client.
import type { MessageMeter, MessagingEvent } from "@agentq/core";
import type { ServedRequest } from "@agentq/http";
import type { QueueStats } from "@agentq/postgres";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** What one webhook dispatcher pass did (the dispatcher's `DispatchPass`, counted). */
export interface WebhookPassCounts {
  delivered: number;
  failed: number;
  exhausted: readonly unknown[];
}

/**
 * The metric families of DESIGN §2c (docs/operations.md lists them): counters are counted where
 * the event committed (the core's `MessageMeter`), request durations where the access log
 * writes its line, the gauges from the periodic `queueStatsRead`.
 */
export interface ServiceMetrics extends MessageMeter {
  /** This process's registry (a cluster worker's is read by the primary's aggregator). */
  readonly registry: Registry;
  /** Observes one answered request: `agentq_http_request_duration_seconds{method,route,status}`. */
  requestServed(entry: ServedRequest): void;
  /** Counts a dispatcher pass: `agentq_webhook_deliveries_total{outcome}`. */
  webhookPass(pass: WebhookPassCounts): void;
  /** Sets the gauges from one periodic read. */
  queueStats(stats: QueueStats): void;
}

const EVENTS: readonly MessagingEvent[] = ["sent", "claimed", "acknowledged", "nacked", "expired", "dead_lettered"];
const EVENT_HELP: Record<MessagingEvent, string> = {
  sent: "Messages accepted by a send (counted once the send committed).",
  claimed: "Messages leased to their recipient by get_pending (receive).",
  acknowledged: "Messages acknowledged by their recipient.",
  nacked: "Messages declined (nack) and returned to pending.",
  expired: "Messages marked expired by the expiry sweep.",
  dead_lettered: "Messages dead-lettered after max_deliveries claims.",
};

/**
 * Creates this process's metrics in a registry of its own, with Node's default metrics
 * (event-loop delay, heap, CPU). `workspaceLabels` (METRICS_WORKSPACE_LABELS=on) adds
 * `workspace_id` to the message counters and the per-workspace gauges; otherwise no label
 * carries a workspace or account id.
 */
export function createServiceMetrics(o: { workspaceLabels: boolean }): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const ws = o.workspaceLabels ? (["workspace_id"] as const) : ([] as const);
  const counters = new Map<MessagingEvent, Counter<string>>(
    EVENTS.map((event) => [event, new Counter<string>({ name: `agentq_messages_${event}_total`, help: EVENT_HELP[event], labelNames: [...ws], registers: [registry] })]),
  );
  const requests = new Histogram({
    name: "agentq_http_request_duration_seconds",
    help: "Duration of answered HTTP requests (REST, MCP, OAuth, dashboard) by method, matched route pattern and status; a long poll counts its wait.",
    labelNames: ["method", "route", "status"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25],
    registers: [registry],
  });
  const deliveries = new Counter({ name: "agentq_webhook_deliveries_total", help: "Webhook delivery attempts by outcome: delivered, failed (will retry), dead (attempts exhausted).", labelNames: ["outcome"], registers: [registry] });
  // The gauges are set by one process only (the background worker): "max" keeps a cluster's
  // aggregate right, where the other workers report nothing or zero.
  const gauge = (name: string, help: string, labelNames: readonly string[] = []) => new Gauge<string>({ name, help, labelNames: [...labelNames], aggregator: "max", registers: [registry] });
  const pending = gauge("agentq_messages_pending", "Messages pending (claimable now or delayed), not expired.", ws);
  const held = gauge("agentq_messages_held", "Messages held under a live lease.", ws);
  const heldForApproval = gauge("agentq_messages_held_for_approval", "Messages held for an approver's decision, not expired.", ws);
  const leaseExpired = gauge("agentq_leases_expired", "Messages whose lease ran out without an ack or nack, not yet claimed again.", ws);
  const oldest = gauge("agentq_oldest_pending_age_seconds", "Age of the oldest pending message (0 when none is pending): the queue lag.", ws);
  const outbox = gauge("agentq_webhook_outbox_depth", "Webhook deliveries pending or retrying.");
  const unsealed = gauge("agentq_audit_unsealed_rows", "Audit rows not yet sealed into their workspace's hash chain.");
  const connections = gauge("agentq_db_connections", "Client connections to the database (every agentq process's pool), by state: open, active (running a statement).", ["state"]);
  const statsAt = gauge("agentq_queue_stats_timestamp_seconds", "When the gauges above were last read from the database (Unix time).");
  return {
    registry,
    count(event, n, workspaceId) {
      const counter = counters.get(event);
      if (counter === undefined) return;
      if (o.workspaceLabels) counter.inc({ workspace_id: workspaceId ?? "" }, n);
      else counter.inc(n);
    },
    requestServed(entry) {
      requests.observe({ method: entry.method, route: entry.route ?? "unmatched", status: String(entry.status) }, entry.duration_ms / 1000);
    },
    webhookPass(pass) {
      if (pass.delivered > 0) deliveries.inc({ outcome: "delivered" }, pass.delivered);
      const dead = pass.exhausted.length;
      if (pass.failed - dead > 0) deliveries.inc({ outcome: "failed" }, pass.failed - dead);
      if (dead > 0) deliveries.inc({ outcome: "dead" }, dead);
    },
    queueStats(stats) {
      const nowMs = stats.now.getTime();
      const ageOf = (at: Date | null) => (at === null ? 0 : Math.max(0, (nowMs - at.getTime()) / 1000));
      if (o.workspaceLabels) {
        // A workspace whose queue emptied drops out of the statement: reset, then set who is there.
        for (const g of [pending, held, heldForApproval, leaseExpired, oldest]) g.reset();
        for (const w of stats.workspaces) {
          const labels = { workspace_id: w.workspaceId };
          pending.set(labels, w.pending);
          held.set(labels, w.held);
          heldForApproval.set(labels, w.heldForApproval);
          leaseExpired.set(labels, w.leaseExpired);
          oldest.set(labels, ageOf(w.oldestPendingAt));
        }
      } else {
        const sum = (f: (w: QueueStats["workspaces"][number]) => number) => stats.workspaces.reduce((n, w) => n + f(w), 0);
        pending.set(sum((w) => w.pending));
        held.set(sum((w) => w.held));
        heldForApproval.set(sum((w) => w.heldForApproval));
        leaseExpired.set(sum((w) => w.leaseExpired));
        oldest.set(stats.workspaces.reduce((age, w) => Math.max(age, ageOf(w.oldestPendingAt)), 0));
      }
      outbox.set(stats.outboxDepth);
      unsealed.set(stats.unsealedAuditRows);
      connections.set({ state: "open" }, stats.connections.open);
      connections.set({ state: "active" }, stats.connections.active);
      statsAt.set(nowMs / 1000);
    },
  };
}

/** The text a scrape reads: this process's registry, or a cluster's workers aggregated. */
export interface MetricsSource {
  contentType: string;
  read(): Promise<string>;
}

/** A single process's metrics, read from its own registry. */
export function registrySource(metrics: ServiceMetrics): MetricsSource {
  return { contentType: metrics.registry.contentType, read: () => metrics.registry.metrics() };
}

/**
 * The primary of a cluster (AGENTQ_WORKERS): every worker's registry, read over the cluster's IPC
 * and aggregated by prom-client's AggregatorRegistry (counters and histograms summed, the
 * background worker's gauges by max).
 */
export async function clusterSource(): Promise<MetricsSource> {
  const { AggregatorRegistry } = await import("prom-client");
  const aggregator = new AggregatorRegistry();
  return { contentType: aggregator.contentType, read: () => aggregator.clusterMetrics() };
}

/** In a cluster worker: answers the primary's requests for this worker's metrics. */
export async function shareWithPrimary(metrics: ServiceMetrics): Promise<void> {
  const { AggregatorRegistry } = await import("prom-client");
  // The constructor adds the worker's IPC listener; setRegistries names what it answers with.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
}
