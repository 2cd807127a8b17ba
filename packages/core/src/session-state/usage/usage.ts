import type { CoreDeps } from "../../deps.ts";
import { malformed, notFound } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { DAY_MS } from "../../time/duration.ts";
import { COUNT_PERIODS, MAX_PERIOD_BUCKETS, nextPeriod, startOfPeriod } from "../decision-log/decision-log.ts";
import { parseTimestamp } from "../conventions/fields.ts";
import type { BuildSession } from "../build-sessions/build-session.ts";
import { restrictedProjectId } from "../conventions/resolve-project.ts";
import { NO_USAGE, USAGE_FIELDS, USAGE_MODELS_MAX, type UsageDayRow, type UsageFigures } from "./usage-report.ts";

// Usage (SESSION-STATE §9): cumulative reports per (session, model) through ping and end; every
// report kept with its difference from the one before, so figures of a period are sums of
// differences and a retried report adds nothing. Money is integer micro-dollars.

/** A usage entry as it arrives on ping or end. */
export interface UsageInput {
  model: string;
  input_tokens?: number;
  output_tokens?: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cost_micro_usd?: number;
}

/**
 * Checks a report: at most 20 models, each once, figures non-negative safe integers.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `usage[i].<field>`.
 */
export function checkUsage(input: readonly UsageInput[]): (UsageFigures & { model: string })[] {
  if (input.length > USAGE_MODELS_MAX) throw malformed(`usage holds at most ${USAGE_MODELS_MAX} models.`, { field: "usage" });
  const seen = new Set<string>();
  return input.map((e, i) => {
    const model = e.model.trim();
    if (model.length === 0 || model.length > 100) throw malformed(`usage[${i}].model must be 1 to 100 characters.`, { field: `usage[${i}].model` });
    if (seen.has(model)) throw malformed("usage names a model twice.", { field: `usage[${i}].model` });
    seen.add(model);
    const out = { model, ...NO_USAGE };
    for (const f of USAGE_FIELDS) {
      const v = e[f] ?? 0;
      if (!Number.isSafeInteger(v) || v < 0) throw malformed(`usage[${i}].${f} must be a non-negative integer.`, { field: `usage[${i}].${f}` });
      out[f] = v;
    }
    return out;
  });
}

/**
 * Records a session's cumulative usage report (ping, end): one stored report per model with its
 * difference from the model's last report. A figure below the last one reported: 400
 * usage_decreased (the caller's transaction rolls back).
 * @throws DomainError SVC_MALFORMED_REQUEST.
 */
export async function recordUsage(deps: Pick<CoreDeps, "ids">, stores: Stores, session: BuildSession, input: readonly UsageInput[] | undefined, at: Date): Promise<void> {
  if (input === undefined || input.length === 0) return;
  const entries = checkUsage(input);
  const latest = new Map((await stores.usage.latest({ workspaceId: session.workspaceId, buildSessionId: session.id })).map((r) => [r.model, r.cumulative]));
  for (const [i, e] of entries.entries()) {
    const prev = latest.get(e.model) ?? NO_USAGE;
    const delta = { ...NO_USAGE };
    for (const f of USAGE_FIELDS) {
      if (e[f] < prev[f]) throw malformed(`usage[${i}].${f} is below the last value reported for ${e.model} (${prev[f]}): usage is cumulative per session and model.`, { field: `usage[${i}].${f}`, reason: "usage_decreased", last_reported: prev[f] });
      delta[f] = e[f] - prev[f];
    }
    const { model, ...cumulative } = e;
    await stores.usage.insert({ report: { workspaceId: session.workspaceId, id: deps.ids.next(), projectId: session.projectId, buildSessionId: session.id, aiAccountId: session.createdBy.aiAccountId, model, reportedAt: at, cumulative, delta } });
  }
}

/** Total tokens of figures. */
export const totalTokens = (f: UsageFigures) => f.input_tokens + f.output_tokens + f.cache_read_tokens + f.cache_write_tokens;

/** Micro-dollars as a decimal string of dollars ("12.345678"), exact (integers throughout). */
export function microToUsd(micro: number): string {
  const v = BigInt(micro);
  const whole = v / 1_000_000n;
  const frac = (v % 1_000_000n).toString().padStart(6, "0");
  return `${whole}.${frac}`;
}

/** The wire form of usage figures. */
export function usageView(f: UsageFigures) {
  return { input_tokens: f.input_tokens, output_tokens: f.output_tokens, cache_read_tokens: f.cache_read_tokens, cache_write_tokens: f.cache_write_tokens, total_tokens: totalTokens(f), cost_usd: microToUsd(f.cost_micro_usd) };
}

const add = (a: UsageFigures, b: UsageFigures): UsageFigures => Object.fromEntries(USAGE_FIELDS.map((f) => [f, a[f] + b[f]])) as UsageFigures;

/** What GET /usage may group by. */
export const USAGE_GROUPS = ["session", "project", "account", "model", "period"] as const;
/** A grouping dimension. */
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** What GET /usage takes (query strings). */
export interface UsageQuery {
  group_by?: string;
  period?: string;
  since?: string;
  until?: string;
  project_id?: string;
  ai_account_id?: string;
  build_session_id?: string;
}

/** One row of GET /usage. */
export interface UsageRowView {
  group: Record<string, string>;
  sessions: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  total_tokens: number;
  cost_usd: string;
  wall_seconds: number;
  active_seconds: number;
}

interface Accumulator {
  group: Record<string, string>;
  figures: UsageFigures;
  sessions: Map<string, UsageDayRow["session"]>;
}

function rowView(a: Accumulator, now: Date): UsageRowView {
  let wall = 0;
  let active = 0;
  for (const s of a.sessions.values()) {
    wall += Math.max(0, Math.floor(((s.endedAt ?? now).getTime() - s.startedAt.getTime()) / 1000));
    active += s.activeSeconds;
  }
  return { group: a.group, sessions: a.sessions.size, ...usageView(a.figures), wall_seconds: wall, active_seconds: active };
}

/**
 * GET /usage: differences summed over `[since, until]` (default the last 30 days), grouped by one
 * or two of session, project, account, model, period (day, week, month; UTC), ordered by the
 * group's values. A group's wall and active seconds are those of its distinct sessions.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND.
 */
export async function usageReport(deps: Pick<CoreDeps, "clock">, stores: Stores, ctx: OperationContext, q: UsageQuery): Promise<{ rows: UsageRowView[]; totals: UsageRowView; window: { since: Date; until: Date }; groupBy: UsageGroup[] }> {
  const groupBy = (q.group_by ?? "model").split(",").map((g) => g.trim()).filter((g) => g !== "");
  if (groupBy.length < 1 || groupBy.length > 2 || new Set(groupBy).size !== groupBy.length || groupBy.some((g) => !(USAGE_GROUPS as readonly string[]).includes(g))) throw malformed(`group_by must name one or two of ${USAGE_GROUPS.join(", ")}, comma-separated.`, { field: "group_by" });
  const period = (q.period ?? "day") as (typeof COUNT_PERIODS)[number];
  if (!(COUNT_PERIODS as readonly string[]).includes(period)) throw malformed(`period must be one of ${COUNT_PERIODS.join(", ")}.`, { field: "period" });
  const now = deps.clock.now();
  const until = parseTimestamp(q.until, "until") ?? now;
  const since = parseTimestamp(q.since, "since") ?? new Date(until.getTime() - 30 * DAY_MS);
  if (since.getTime() > until.getTime()) throw malformed("since must not be after until.", { field: "since" });
  let buckets = 0;
  for (let b = startOfPeriod(since, period); b.getTime() < until.getTime() && buckets <= MAX_PERIOD_BUCKETS; b = nextPeriod(b, period)) buckets++;
  if (buckets > MAX_PERIOD_BUCKETS) throw malformed(`The window holds more than ${MAX_PERIOD_BUCKETS} ${period}s; narrow it or choose a longer period.`, { field: "since" });
  for (const f of ["project_id", "ai_account_id", "build_session_id"] as const) if (q[f] !== undefined && q[f] !== "" && !isUlid(q[f])) throw malformed(`${f} must be a ULID.`, { field: f });
  const only = restrictedProjectId(ctx);
  const projectId = q.project_id === undefined || q.project_id === "" ? only : q.project_id;
  if (only !== null && projectId !== only) throw notFound("Project");
  if (projectId !== null && (await stores.projects.find({ workspaceId: ctx.principal.workspace.id, projectId })) === null) throw notFound("Project");
  const rows = await stores.usage.byDay({ workspaceId: ctx.principal.workspace.id, projectId, aiAccountId: q.ai_account_id || null, buildSessionId: q.build_session_id || null, since, until });
  const groups = new Map<string, Accumulator>();
  const total: Accumulator = { group: {}, figures: { ...NO_USAGE }, sessions: new Map() };
  for (const r of rows) {
    const values: Record<UsageGroup, string> = { session: r.buildSessionId, project: r.projectId, account: r.aiAccountId, model: r.model, period: startOfPeriod(r.day, period).toISOString() };
    const group = Object.fromEntries(groupBy.map((g) => [g, values[g as UsageGroup]]));
    const key = JSON.stringify(groupBy.map((g) => values[g as UsageGroup]));
    const acc = groups.get(key) ?? { group, figures: { ...NO_USAGE }, sessions: new Map() };
    acc.figures = add(acc.figures, r.figures);
    acc.sessions.set(r.buildSessionId, r.session);
    groups.set(key, acc);
    total.figures = add(total.figures, r.figures);
    total.sessions.set(r.buildSessionId, r.session);
  }
  const sorted = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, acc]) => rowView(acc, now));
  return { rows: sorted, totals: rowView(total, now), window: { since, until }, groupBy: groupBy as UsageGroup[] };
}
