import type { Figure } from "./report.ts";
import { ratio } from "./stats.ts";

/**
 * The result table from the raw measurements of one run: every figure with its ratio to the
 * PostgreSQL limit (or the in-run reference its goal names) and to pg-boss, and the goals of
 * issue 7 checked. Figures that were not measured are left out.
 */
export function buildFigures(m: ReadonlyMap<string, number>): Figure[] {
  const v = (id: string) => m.get(id) ?? Number.NaN;
  const has = (id: string) => m.has(id) && Number.isFinite(m.get(id));
  const out: Figure[] = [];
  /** Adds `f` when its measurement (`source`, by default its own id) was taken. */
  const add = (f: Figure, source: string = f.id) => {
    if (has(source)) out.push(f);
  };
  const cmp = (id: string, ref: string) => ({ ref, ratio: ratio(v(id), v(ref)) });
  const atLeast = (r: number, k: number) => (Number.isFinite(r) ? r >= k : null);
  const atMost = (r: number, k: number) => (Number.isFinite(r) ? r <= k : null);

  for (const n of [1, 8, 32]) {
    add({ id: `L1.send@${n}`, label: `limit: send rows, ${n} in flight`, value: v(`L1.send@${n}`), unit: "/s" });
    add({ id: `L1.send.p50@${n}`, label: `limit: send rows p50, ${n} in flight`, value: v(`L1.send.p50@${n}`), unit: "ms" });
  }
  add({ id: "L1.pgbench@32", label: "limit: pgbench, send rows, 32 clients", value: v("L1.pgbench@32"), unit: "/s", limit: cmp("L1.pgbench@32", "L1.send@32") });
  // The limit is given twice: the harness's own (L1, postgres.js) and pgbench's (prepared, C).
  add({ id: "S1.send@32/pgbench", label: "send, 32 in flight, to pgbench's limit", value: v("S1.send@32"), unit: "/s", limit: cmp("S1.send@32", "L1.pgbench@32") }, "S1.send@32");
  add({ id: "L1.drain", label: "limit: drain, claim 100 + ack batch (raw SQL, 4 workers)", value: v("L1.drain"), unit: "/s", peer: cmp("L1.drain", "pgboss.fetch100+completeIds") });

  for (const n of [1, 8, 32]) {
    const s1 = `S1.send@${n}`;
    const r = ratio(v(s1), v(`L1.send@${n}`));
    const p = ratio(v(s1), v("pgboss.send@16"));
    add({
      id: s1,
      label: `send, ${n} in flight`,
      value: v(s1),
      unit: "/s",
      limit: { ref: `L1.send@${n}`, ratio: r },
      peer: { ref: "pgboss.send@16", ratio: p },
      ...(n === 32 ? { goal: { text: ">= 1.5 x pgboss.send@16", met: atLeast(p, 1.5) } } : {}),
    });
    add({ id: `S1.server_cpu_us@${n}`, label: `send, ${n} in flight: the server's CPU per send (/proc utime + stime, sealing included)`, value: v(`S1.server_cpu_us@${n}`), unit: "µs" });
    add({ id: `S1.p50@${n}`, label: `send p50, ${n} in flight`, value: v(`S1.p50@${n}`), unit: "ms", limit: cmp(`S1.p50@${n}`, `L1.send.p50@${n}`) });
    add({ id: `S1.p99@${n}`, label: `send p99, ${n} in flight`, value: v(`S1.p99@${n}`), unit: "ms" });
    add({ id: `S1.unsealed_max@${n}`, label: `send, ${n} in flight: most audit rows waiting for the sealer (sampled every 250 ms)`, value: v(`S1.unsealed_max@${n}`), unit: "rows" });
    add({ id: `S1.unsigned_max@${n}`, label: `send, ${n} in flight: most sealed rows not yet in a signed checkpoint`, value: v(`S1.unsigned_max@${n}`), unit: "rows" });
    add({ id: `S1.seal_catchup_ms@${n}`, label: `send, ${n} in flight: sealer and checkpoint level with the sends after the last one`, value: v(`S1.seal_catchup_ms@${n}`), unit: "ms" });
  }

  const s2 = ratio(v("S2.drain"), v("pgboss.fetch100+complete1"));
  add({ id: "S2.drain", label: "drain, 4 consumers, get-pending 100 + ack each", value: v("S2.drain"), unit: "/s", limit: cmp("S2.drain", "L1.drain"), peer: { ref: "pgboss.fetch100+complete1", ratio: s2 }, goal: { text: ">= 1.5 x pgboss.fetch100+complete1", met: atLeast(s2, 1.5) } });
  const s2b = ratio(v("S2.drain-batch"), v("pgboss.fetch100+completeIds"));
  add({ id: "S2.drain.server_cpu_us", label: "drain, ack each: the server's CPU per message (claims, acks, sealing meanwhile)", value: v("S2.drain.server_cpu_us"), unit: "µs" });
  add({ id: "S2.drain-batch", label: "drain, 4 consumers, get-pending 100 + batch ack", value: v("S2.drain-batch"), unit: "/s", limit: cmp("S2.drain-batch", "L1.drain"), peer: { ref: "pgboss.fetch100+completeIds", ratio: s2b }, goal: { text: ">= 1.0 x pgboss.fetch100+completeIds", met: atLeast(s2b, 1.0) } });
  add({ id: "S2.drain-batch.server_cpu_us", label: "drain, batch ack: the server's CPU per message", value: v("S2.drain-batch.server_cpu_us"), unit: "µs" });

  const wake = ratio(v("S3.wake.p50"), v("S3.get.p50"));
  add({ id: "S3.wake.p50", label: "wake-up, send response to claim, p50", value: v("S3.wake.p50"), unit: "ms", limit: { ref: "S3.get.p50", ratio: wake }, goal: { text: "<= 3 x S3.get.p50", met: atMost(wake, 3) } });
  add({ id: "S3.wake.p99", label: "wake-up, send response to claim, p99", value: v("S3.wake.p99"), unit: "ms", limit: cmp("S3.wake.p99", "S3.get.p50") });
  add({ id: "S3.get.p50", label: "authenticated GET /v1/recipients, p50", value: v("S3.get.p50"), unit: "ms" });
  add({ id: "S3.push.p50", label: "push, send response to notifications/resources/updated on a subscribed MCP session, p50", value: v("S3.push.p50"), unit: "ms", limit: cmp("S3.push.p50", "S3.wake.p50") });
  add({ id: "S3.push.p99", label: "push, send response to notifications/resources/updated on a subscribed MCP session, p99", value: v("S3.push.p99"), unit: "ms", limit: cmp("S3.push.p99", "S3.wake.p99") });

  const s4 = ratio(v("S4.mcp@8"), v("S1.send@8"));
  add({ id: "S4.mcp@8", label: "MCP send tool, 8 in flight", value: v("S4.mcp@8"), unit: "/s", limit: { ref: "S1.send@8", ratio: s4 }, peer: cmp("S4.mcp@8", "pgboss.send@16"), goal: { text: ">= 0.7 x S1.send@8", met: atLeast(s4, 0.7) } });
  add({ id: "S4.server_cpu_us@8", label: "MCP send tool, 8 in flight: the server's CPU per call (sealing after the level not counted)", value: v("S4.server_cpu_us@8"), unit: "µs", limit: cmp("S4.server_cpu_us@8", "S1.server_cpu_us@8") });
  add({ id: "S4.p50@8", label: "MCP send tool p50, 8 in flight", value: v("S4.p50@8"), unit: "ms", limit: cmp("S4.p50@8", "S1.p50@8") });

  // N2: the same scenarios against a server with AGENTQ_WORKERS=2 (issue 33), beside N = 1.
  for (const n of [1, 8, 32]) add({ id: `N2.S1.send@${n}`, label: `send, ${n} in flight, 2 workers`, value: v(`N2.S1.send@${n}`), unit: "/s", limit: cmp(`N2.S1.send@${n}`, `S1.send@${n}`), peer: cmp(`N2.S1.send@${n}`, "pgboss.send@16") });
  const n2s1 = ratio(v("N2.S1.send@32"), v("pgboss.send@16"));
  add({ id: "N2.S1.send@32/limit", label: "send, 32 in flight, 2 workers, to the limit", value: v("N2.S1.send@32"), unit: "/s", limit: cmp("N2.S1.send@32", "L1.send@32"), peer: { ref: "pgboss.send@16", ratio: n2s1 }, goal: { text: ">= 1.5 x pgboss.send@16", met: atLeast(n2s1, 1.5) } }, "N2.S1.send@32");
  const n2s2 = ratio(v("N2.S2.drain"), v("pgboss.fetch100+complete1"));
  add({ id: "N2.S2.drain", label: "drain, get-pending 100 + ack each, 2 workers", value: v("N2.S2.drain"), unit: "/s", limit: cmp("N2.S2.drain", "S2.drain"), peer: { ref: "pgboss.fetch100+complete1", ratio: n2s2 }, goal: { text: ">= 1.5 x pgboss.fetch100+complete1", met: atLeast(n2s2, 1.5) } });
  const n2s4 = ratio(v("N2.S4.mcp@8"), v("N2.S1.send@8"));
  add({ id: "N2.S4.mcp@8", label: "MCP send tool, 8 in flight, 2 workers", value: v("N2.S4.mcp@8"), unit: "/s", limit: { ref: "N2.S1.send@8", ratio: n2s4 }, peer: cmp("N2.S4.mcp@8", "S4.mcp@8"), goal: { text: ">= 0.7 x N2.S1.send@8", met: atLeast(n2s4, 0.7) } });

  // T: the same scenarios with telemetry on (metrics and every span exported), beside off (issue 29).
  for (const n of [1, 8, 32]) add({ id: `T.S1.send@${n}`, label: `send, ${n} in flight, telemetry on`, value: v(`T.S1.send@${n}`), unit: "/s", limit: cmp(`T.S1.send@${n}`, `S1.send@${n}`) });
  const t32 = ratio(v("T.S1.send@32"), v("S1.send@32"));
  add({ id: "T.S1.send@32/off", label: "send, 32 in flight, telemetry on, to off", value: v("T.S1.send@32"), unit: "/s", limit: { ref: "S1.send@32", ratio: t32 }, goal: { text: ">= 0.9 x S1.send@32", met: atLeast(t32, 0.9) } }, "T.S1.send@32");
  const t4 = ratio(v("T.S4.mcp@8"), v("S4.mcp@8"));
  add({ id: "T.S4.mcp@8", label: "MCP send tool, 8 in flight, telemetry on", value: v("T.S4.mcp@8"), unit: "/s", limit: { ref: "S4.mcp@8", ratio: t4 }, goal: { text: ">= 0.9 x S4.mcp@8", met: atLeast(t4, 0.9) } });
  add({ id: "T.export_mb", label: "telemetry on: OTLP export received by the run's receiver", value: v("T.export_mb"), unit: "MB" });

  // C1: the MCP tool catalogue per credential kind (DESIGN §2c's bounds).
  const KB = 1024;
  const bytesGoal = (id: string, max: number) => ({ text: `<= ${max / KB} KB`, met: has(id) ? v(id) <= max : null });
  add({ id: "C1.bytes.operational_messaging", label: "MCP tools/list, operational credential with the messaging scopes", value: v("C1.bytes.operational_messaging"), unit: "B", goal: bytesGoal("C1.bytes.operational_messaging", 16 * KB) });
  add({ id: "C1.tools.operational_messaging", label: "MCP tools listed, operational credential with the messaging scopes", value: v("C1.tools.operational_messaging"), unit: "tools" });
  add({ id: "C1.bytes.operational_all", label: "MCP tools/list, operational credential with every scope, every toolset", value: v("C1.bytes.operational_all"), unit: "B", goal: bytesGoal("C1.bytes.operational_all", 64 * KB) });
  add({ id: "C1.tools.operational_all", label: "MCP tools listed, operational credential with every scope, every toolset", value: v("C1.tools.operational_all"), unit: "tools" });
  add({ id: "C1.bytes.administrative_all", label: "MCP tools/list, administrative credential with every scope, every toolset", value: v("C1.bytes.administrative_all"), unit: "B", goal: bytesGoal("C1.bytes.administrative_all", 64 * KB) });
  add({ id: "C1.tools.administrative_all", label: "MCP tools listed, administrative credential with every scope, every toolset", value: v("C1.tools.administrative_all"), unit: "tools" });
  add({ id: "C1.largest_tool", label: "MCP largest single tool definition shown to any of them", value: v("C1.largest_tool"), unit: "B", goal: bytesGoal("C1.largest_tool", 4 * KB) });

  add({ id: "S7.one@32", label: "send, 32 in flight, all to one workspace (of 100)", value: v("S7.one@32"), unit: "/s", limit: cmp("S7.one@32", "S1.send@32") });
  add({ id: "S7.mix@32", label: "send, 32 in flight, spread over 100 workspaces", value: v("S7.mix@32"), unit: "/s", limit: cmp("S7.mix@32", "S7.one@32") });
  add({ id: "S7.mix.p50@32", label: "send p50, 32 in flight, spread over 100 workspaces", value: v("S7.mix.p50@32"), unit: "ms", limit: cmp("S7.mix.p50@32", "S7.one.p50@32") });
  add({ id: "S8.applicable@8", label: "POST /v1/rules/applicable, 200 active rules, 20 paths, 8 in flight", value: v("S8.applicable@8"), unit: "/s", limit: cmp("S8.applicable@8", "S1.send@8") });
  add({ id: "S8.p50@8", label: "POST /v1/rules/applicable p50, 200 active rules, 20 paths, 8 in flight", value: v("S8.p50@8"), unit: "ms" });
  add({ id: "pgboss.send@16", label: "pg-boss send(), 16 in flight", value: v("pgboss.send@16"), unit: "/s", limit: cmp("pgboss.send@16", "L1.send@32") });
  add({ id: "pgboss.fetch100+complete1", label: "pg-boss fetch(100) + complete one by one, 4 workers", value: v("pgboss.fetch100+complete1"), unit: "/s", limit: cmp("pgboss.fetch100+complete1", "L1.drain") });
  add({ id: "pgboss.fetch100+completeIds", label: "pg-boss fetch(100) + complete(ids[]), 4 workers", value: v("pgboss.fetch100+completeIds"), unit: "/s", limit: cmp("pgboss.fetch100+completeIds", "L1.drain") });

  const window = v("S6.window");
  const w = Number.isFinite(window) ? window.toLocaleString("en") : "?";
  add({ id: "S6.first", label: `soak: first ${w} acknowledged`, value: v("S6.first"), unit: "/s" });
  const soak = ratio(v("S6.last"), v("S6.first"));
  add({ id: "S6.last", label: `soak: last ${w} acknowledged (of ${(m.get("S6.total") ?? 0).toLocaleString("en")})`, value: v("S6.last"), unit: "/s", limit: { ref: "S6.first", ratio: soak }, goal: { text: ">= 0.9 x S6.first", met: atLeast(soak, 0.9) } });
  const rss = v("S6.rss_peak_mb");
  add({ id: "S6.rss_peak_mb", label: "soak: server RSS peak during the soak (VmHWM)", value: rss, unit: "MB", goal: { text: "<= 250 MB", met: Number.isFinite(rss) ? rss <= 250 : null } });
  add({ id: "S6.unsealed_max", label: "soak: most audit rows waiting for the sealer at a 10 s sample (issue 32: bounded)", value: v("S6.unsealed_max"), unit: "" });
  add({ id: "S6.audit_mb", label: "soak: audit tables at the end (audit_log, audit_chain, audit_unsealed; indexes included)", value: v("S6.audit_mb"), unit: "MB" });
  add({ id: "S6.audit_dead_tuples", label: "soak: dead tuples in the audit tables at the end", value: v("S6.audit_dead_tuples"), unit: "" });
  add({ id: "S6.audit_updated_tuples", label: "soak: audit tuples updated (the sealer's updates before migration 0010)", value: v("S6.audit_updated_tuples"), unit: "" });
  add({ id: "server.rss_peak_mb", label: "server RSS peak before the soak (VmHWM)", value: v("server.rss_peak_mb"), unit: "MB" });
  return out;
}
