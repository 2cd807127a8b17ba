import { INVARIANTS, type CheckReport } from "./checker.ts";
import type { FaultKind, RunHistory } from "./history.ts";

/** How a run was configured, for the summary's header. */
export interface RunMeta {
  seed: number;
  workloadMs: number;
  drainMs: number;
  totalMs: number;
  /** Messages still pending or held, by state, when the drain stopped (empty: drained; null: not read). */
  liveAtDrainEnd?: Record<string, number> | null;
}

/** Counts of each value of `key` over `items`. */
function tally<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}

function line(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1));
  return entries.length === 0 ? "none" : entries.map(([k, v]) => `${k} ${v}`).join(", ");
}

/** Counts of injected faults by kind. */
export function faultCounts(history: RunHistory): Partial<Record<FaultKind, number>> {
  return tally(history.faults, (f) => f.kind);
}

/** The plain-text summary a run prints: operations, faults by kind, each invariant with its count. */
export function formatSummary(history: RunHistory, report: CheckReport, meta: RunMeta): string {
  const acks = history.settles.filter((s) => s.kind === "ack");
  const nacks = history.settles.filter((s) => s.kind === "nack");
  const outcome = (s: { outcome: string; code: string | null }) => (s.outcome === "ok" ? "ok" : `${s.outcome}${s.code ? ` ${s.code}` : ""}`);
  const out: string[] = [];
  out.push(`agentq fault run: seed ${meta.seed}, workload ${(meta.workloadMs / 1000).toFixed(0)} s, drain ${(meta.drainMs / 1000).toFixed(1)} s, total ${(meta.totalMs / 1000).toFixed(0)} s`);
  if (meta.liveAtDrainEnd != null && Object.keys(meta.liveAtDrainEnd).length > 0) out.push(`the drain stopped at its bound with messages live: ${line(meta.liveAtDrainEnd)}`);
  out.push("");
  out.push("operations");
  out.push(`  sends         ${history.sends.length} (${line(tally(history.sends, (s) => s.outcome))}); attempts ${history.sends.reduce((n, s) => n + s.attempts, 0)}`);
  out.push(`  get-pending   ${Object.values(history.polls).reduce((a, b) => a + b, 0)} (${line(history.polls)})`);
  out.push(`  deliveries    ${history.deliveries.length} seen by consumers`);
  out.push(`  acks          ${acks.length} (${line(tally(acks, outcome))}); ${acks.filter((a) => a.afterSleepingPastLease).length} after sleeping past the lease`);
  out.push(`  nacks         ${nacks.length} (${line(tally(nacks, outcome))})`);
  out.push(`  hand-offs     ${history.handOffs.length} (${line(tally(history.handOffs, outcome))})`);
  out.push("");
  out.push(`faults injected: ${history.faults.length}`);
  out.push(`  ${line(faultCounts(history))}`);
  out.push("");
  out.push("checked");
  const c = report.checked;
  out.push(`  acknowledged sends ${c.acknowledgedSends}; indeterminate sends that committed ${c.indeterminateCommitted}, that did not ${c.indeterminateNotCommitted}; dead-lettered after max_deliveries ${c.deadLettered}`);
  out.push(`  messages ${c.messages}; leases granted ${c.claims}; accepted acks ${c.acceptedAcks}; accepted nacks ${c.acceptedNacks}; hand-offs ${c.handOffs}; audit rows verified ${c.auditRowsVerified}`);
  out.push("");
  out.push("invariants (each must be 0)");
  for (const i of INVARIANTS) out.push(`  ${i.padEnd(24)} ${report.counts[i]}${report.counts[i] === 0 ? "" : "   <-- VIOLATED"}`);
  out.push("");
  const d = report.duplicates;
  out.push(`duplicates (deliveries beyond the first; allowed): ${d.total} = lease expiry ${d.byCause.lease_expiry} + nack ${d.byCause.nack} + hand-off ${d.byCause.hand_off} + crash ${d.byCause.crash}; seen by consumers ${d.observedByConsumers}`);
  if (report.examples.length > 0) {
    out.push("");
    out.push("violations (examples)");
    for (const v of report.examples) out.push(`  [${v.invariant}] ${v.detail}`);
  }
  out.push("");
  out.push(report.ok ? "RESULT: PASS" : "RESULT: FAIL");
  return out.join("\n");
}
