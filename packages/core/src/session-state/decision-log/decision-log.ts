import type { CoreDeps } from "../../deps.ts";
import { DomainError, malformed, notFound } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { DAY_MS } from "../../time/duration.ts";
import { SESSION_STATE_LIMITS, checkFiles, checkMarkdown, checkStringList, checkTags, checkTitle, parseTimestamp } from "../conventions/fields.ts";
import { SOURCE_KINDS, type Alternative, type DecisionEntry, type DecisionRow, type SourceAmendment, type SourceRef } from "./decision-entry.ts";
import { projectArchived, resolveProject, visibleTo } from "../conventions/resolve-project.ts";
import { actorOf, sessionStateAuditEntry } from "../conventions/record-history.ts";
import { oneLine } from "../text/markdown-text.ts";
import { sessionOfChange } from "../conventions/session-of-change.ts";
import { credentialCaller } from "../../access/principal.ts";

/** A source as it arrives. */
export interface SourceInput {
  kind: string;
  ref: string;
  url?: string | null;
}

/** An alternative as it arrives. */
export interface AlternativeInput {
  option: string;
  pros?: string[];
  cons?: string[];
  chosen?: boolean;
}

/** The content fields of a decision or correction as they arrive (already shape-checked). */
export interface DecisionContentInput {
  title?: string;
  decision_md?: string;
  context_md?: string;
  rationale_md?: string;
  alternatives?: AlternativeInput[];
  consequences?: { good?: string[]; bad?: string[] };
  tags?: string[];
  files?: string[];
  decided_at?: string;
  source?: SourceInput;
}

/**
 * A source: kind one of session, import, pr, commit, url, manual; ref 1-500 characters; url absolute http(s).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field source).
 */
export function checkSource(input: SourceInput | undefined, fallback: SourceRef): SourceRef {
  if (input === undefined) return fallback;
  if (!(SOURCE_KINDS as readonly string[]).includes(input.kind)) throw malformed(`source.kind must be one of ${SOURCE_KINDS.join(", ")}.`, { field: "source.kind" });
  if (input.ref.trim().length === 0 || input.ref.length > 500) throw malformed("source.ref must be 1 to 500 characters.", { field: "source.ref" });
  const url = input.url ?? null;
  if (url !== null) {
    let ok = false;
    try {
      ok = ["https:", "http:"].includes(new URL(url).protocol) && url.length <= 2048;
    } catch {
      ok = false;
    }
    if (!ok) throw malformed("source.url must be an absolute http(s) URL.", { field: "source.url" });
  }
  return { kind: input.kind as SourceRef["kind"], ref: input.ref, url };
}

function checkAlternatives(input: AlternativeInput[] | undefined): Alternative[] {
  const list = input ?? [];
  if (list.length > SESSION_STATE_LIMITS.alternativesMax) throw malformed(`alternatives holds at most ${SESSION_STATE_LIMITS.alternativesMax} options.`, { field: "alternatives" });
  return list.map((a, i) => ({
    option: checkTitle(a.option, `alternatives[${i}].option`),
    pros: checkStringList(a.pros, `alternatives[${i}].pros`, 20),
    cons: checkStringList(a.cons, `alternatives[${i}].cons`, 20),
    chosen: a.chosen ?? false,
  }));
}

function checkContentSize(entry: Pick<DecisionEntry, "contextMd" | "decisionMd" | "rationaleMd">): void {
  checkMarkdown(entry.contextMd, "context_md");
  checkMarkdown(entry.decisionMd, "decision_md", { required: true });
  checkMarkdown(entry.rationaleMd, "rationale_md");
}

async function appendAudited(deps: CoreDeps, stores: Stores, ctx: OperationContext, entry: DecisionEntry): Promise<{ kind: "appended" } | { kind: "not_tip"; currentId: string }> {
  const result = await stores.decisions.append({ entry });
  if (result.kind === "appended") {
    await stores.audit.append({
      entry: sessionStateAuditEntry(deps, ctx, {
        occurredAt: entry.recordedAt,
        activity: entry.kind === "decision" ? "decision.recorded" : "decision.corrected",
        subjectType: "decision",
        subjectId: entry.id,
        details: { project_id: entry.projectId, number: entry.number, title: entry.title, supersedes_id: entry.supersedesId },
      }),
    });
  }
  return result;
}

/**
 * Records a decision (kind decision, the next number of its project; `decision.recorded`).
 * @throws DomainError SVC_MALFORMED_REQUEST (fields; details.reason no_project),
 *   SVC_RESOURCE_NOT_FOUND (project), SVC_RESOURCE_CONFLICT (project archived).
 */
export async function recordDecision(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: DecisionContentInput & { project_id?: string; title: string; decision_md: string; build_session_id?: string }): Promise<DecisionRow> {
  const project = await resolveProject(stores, ctx, input.project_id, { forWrite: true });
  const now = deps.clock.now();
  const id = deps.ids.next();
  const entry: DecisionEntry = {
    workspaceId: project.workspaceId,
    id,
    projectId: project.id,
    number: 0,
    kind: "decision",
    title: checkTitle(input.title),
    contextMd: input.context_md ?? "",
    decisionMd: input.decision_md,
    rationaleMd: input.rationale_md ?? "",
    alternatives: checkAlternatives(input.alternatives),
    consequences: { good: checkStringList(input.consequences?.good, "consequences.good", 20), bad: checkStringList(input.consequences?.bad, "consequences.bad", 20) },
    tags: checkTags(input.tags),
    files: checkFiles(input.files),
    buildSessionId: await sessionOfChange(stores, ctx, project.id, input.build_session_id),
    createdBy: actorOf(ctx),
    decidedAt: parseTimestamp(input.decided_at, "decided_at") ?? now,
    recordedAt: now,
    supersedesId: null,
    chainRootId: id,
    source: checkSource(input.source, { kind: "manual", ref: credentialCaller(ctx.principal).account.friendlyName, url: null }),
  };
  checkContentSize(entry);
  entry.number = await stores.projects.nextNumber({ workspaceId: entry.workspaceId, projectId: entry.projectId, sequence: "decision" });
  await appendAudited(deps, stores, ctx, entry);
  return { entry, supersededById: null };
}

/**
 * The entry with that id as the caller may see it.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (missing, other workspace, outside a restricted credential's project).
 */
export async function findDecision(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<DecisionRow> {
  const row = isUlid(id) ? await stores.decisions.find({ workspaceId: ctx.principal.workspace.id, id }) : null;
  if (row === null || !visibleTo(ctx, row.entry.projectId)) throw notFound("Decision");
  return row;
}

/** The tip (the entry without successor) of `row`'s chain. */
/** The id of the tip of the chain `id` belongs to (the caller may see it). */
export async function chainTipId(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<string> {
  return (await tipOf(stores, await findDecision(stores, ctx, id))).entry.id;
}

async function tipOf(stores: Stores, row: DecisionRow): Promise<DecisionRow> {
  if (row.supersededById === null) return row;
  const chain = await stores.decisions.chain({ workspaceId: row.entry.workspaceId, chainRootId: row.entry.chainRootId });
  return chain.find((r) => r.supersededById === null) ?? row;
}

function notTip(currentId: string): DomainError {
  return new DomainError("SVC_RESOURCE_CONFLICT", "Only the tip of a decision's chain can be corrected; correct the current entry.", { reason: "not_tip", current_id: currentId });
}

/**
 * Corrects a decision: a new entry (kind correction, the next number) superseding the chain's
 * tip `id` (`decision.corrected`). decision_md and rationale_md (why it changed) are required;
 * other content fields default to the superseded entry's. The superseded entry never changes.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_MALFORMED_REQUEST, SVC_RESOURCE_CONFLICT
 *   (details.reason not_tip with details.current_id; project_archived).
 */
export async function correctDecision(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: DecisionContentInput & { decision_md: string; rationale_md: string; build_session_id?: string }): Promise<DecisionRow> {
  const target = await findDecision(stores, ctx, id);
  if (target.supersededById !== null) throw notTip((await tipOf(stores, target)).entry.id);
  const project = await resolveProject(stores, ctx, target.entry.projectId, { forWrite: false });
  if (project.state === "archived") throw projectArchived(project.id);
  const prev = target.entry;
  const now = deps.clock.now();
  if (input.rationale_md.trim().length === 0) throw malformed("rationale_md must say why the decision changed.", { field: "rationale_md" });
  const entry: DecisionEntry = {
    workspaceId: prev.workspaceId,
    id: deps.ids.next(),
    projectId: prev.projectId,
    number: 0,
    kind: "correction",
    title: input.title === undefined ? prev.title : checkTitle(input.title),
    contextMd: input.context_md ?? prev.contextMd,
    decisionMd: input.decision_md,
    rationaleMd: input.rationale_md,
    alternatives: input.alternatives === undefined ? prev.alternatives : checkAlternatives(input.alternatives),
    consequences: input.consequences === undefined ? prev.consequences : { good: checkStringList(input.consequences.good, "consequences.good", 20), bad: checkStringList(input.consequences.bad, "consequences.bad", 20) },
    tags: input.tags === undefined ? prev.tags : checkTags(input.tags),
    files: input.files === undefined ? prev.files : checkFiles(input.files),
    buildSessionId: await sessionOfChange(stores, ctx, prev.projectId, input.build_session_id),
    createdBy: actorOf(ctx),
    decidedAt: parseTimestamp(input.decided_at, "decided_at") ?? now,
    recordedAt: now,
    supersedesId: prev.id,
    chainRootId: prev.chainRootId,
    source: checkSource(input.source, { kind: "manual", ref: credentialCaller(ctx.principal).account.friendlyName, url: null }),
  };
  checkContentSize(entry);
  entry.number = await stores.projects.nextNumber({ workspaceId: entry.workspaceId, projectId: entry.projectId, sequence: "decision" });
  const result = await appendAudited(deps, stores, ctx, entry);
  if (result.kind === "not_tip") throw notTip(result.currentId);
  return { entry, supersededById: null };
}

/**
 * Appends an amendment of an entry's source (`decision.source_amended`); the entry itself never changes.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_MALFORMED_REQUEST, SVC_RESOURCE_CONFLICT (project archived).
 */
export async function amendDecisionSource(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { source: SourceInput; reason: string }): Promise<SourceAmendment> {
  const row = await findDecision(stores, ctx, id);
  await resolveProject(stores, ctx, row.entry.projectId, { forWrite: true });
  const reason = checkTitle(input.reason, "reason", 2_000);
  const amendment: SourceAmendment = { workspaceId: row.entry.workspaceId, id: deps.ids.next(), entryId: row.entry.id, source: checkSource(input.source, row.entry.source), reason, at: deps.clock.now(), by: actorOf(ctx) };
  await stores.decisions.appendAmendment({ amendment });
  await stores.audit.append({
    entry: sessionStateAuditEntry(deps, ctx, { occurredAt: amendment.at, activity: "decision.source_amended", subjectType: "decision", subjectId: row.entry.id, details: { project_id: row.entry.projectId, source: amendment.source, reason } }),
  });
  return amendment;
}

/** Period buckets of count-by-period. */
export const COUNT_PERIODS = ["day", "week", "month"] as const;
/** Most buckets one count-by-period answers. */
export const MAX_PERIOD_BUCKETS = 366;

export function startOfPeriod(at: Date, period: (typeof COUNT_PERIODS)[number]): Date {
  const d = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  if (period === "week") d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (period === "month") d.setUTCDate(1);
  return d;
}

export function nextPeriod(at: Date, period: (typeof COUNT_PERIODS)[number]): Date {
  const d = new Date(at);
  if (period === "day") d.setUTCDate(d.getUTCDate() + 1);
  else if (period === "week") d.setUTCDate(d.getUTCDate() + 7);
  else d.setUTCMonth(d.getUTCMonth() + 1);
  return d;
}

/**
 * Entries per UTC day, ISO week (from Monday) or month of `decidedAt`, zero-filled, from the
 * bucket holding `since` (default: 30 days before `now`) to the one holding `until` (default now).
 * @throws DomainError SVC_MALFORMED_REQUEST (until before since, more than 366 buckets).
 */
export async function countDecisionsByPeriod(stores: Stores, p: { workspaceId: string; projectId: string; period: (typeof COUNT_PERIODS)[number]; since: Date | null; until: Date | null; now: Date }): Promise<{ period: string; buckets: { start: string; count: number }[]; total: number }> {
  const until = p.until ?? p.now;
  const since = p.since ?? new Date(until.getTime() - 30 * DAY_MS);
  if (until.getTime() < since.getTime()) throw malformed("until must not be before since.", { field: "until" });
  const first = startOfPeriod(since, p.period);
  const starts: Date[] = [];
  for (let at = first; at.getTime() <= until.getTime(); at = nextPeriod(at, p.period)) {
    starts.push(at);
    if (starts.length > MAX_PERIOD_BUCKETS) throw malformed(`At most ${MAX_PERIOD_BUCKETS} buckets: narrow since/until or use a longer period.`, { field: "since", max_buckets: MAX_PERIOD_BUCKETS });
  }
  const end = nextPeriod(starts[starts.length - 1] ?? first, p.period);
  const days = await stores.decisions.countByDay({ workspaceId: p.workspaceId, projectId: p.projectId, since: first, until: end });
  const counts = new Map<string, number>();
  for (const d of days) {
    const key = startOfPeriod(new Date(`${d.day}T00:00:00.000Z`), p.period).toISOString();
    counts.set(key, (counts.get(key) ?? 0) + d.count);
  }
  const buckets = starts.map((s) => ({ start: s.toISOString(), count: counts.get(s.toISOString()) ?? 0 }));
  return { period: p.period, buckets, total: buckets.reduce((n, b) => n + b.count, 0) };
}

/** The wire form of a source. */
export function sourceView(s: SourceRef): { kind: string; ref: string; url: string | null } {
  return { kind: s.kind, ref: s.ref, url: s.url };
}

/** The wire form of a decision-log entry (status and superseded_by_id derived). */
export function decisionView(row: DecisionRow) {
  const e = row.entry;
  return {
    id: e.id,
    project_id: e.projectId,
    number: e.number,
    kind: e.kind,
    status: row.supersededById === null ? ("active" as const) : ("superseded" as const),
    title: e.title,
    context_md: e.contextMd,
    decision_md: e.decisionMd,
    rationale_md: e.rationaleMd,
    alternatives: e.alternatives,
    consequences: e.consequences,
    tags: e.tags,
    files: e.files,
    build_session_id: e.buildSessionId,
    author_ai_account_id: e.createdBy.aiAccountId,
    created_by: { ai_account_id: e.createdBy.aiAccountId, friendly_name: e.createdBy.friendlyName },
    decided_at: e.decidedAt.toISOString(),
    recorded_at: e.recordedAt.toISOString(),
    created_at: e.recordedAt.toISOString(),
    updated_at: e.recordedAt.toISOString(),
    supersedes_id: e.supersedesId,
    superseded_by_id: row.supersededById,
    chain_root_id: e.chainRootId,
    source: sourceView(e.source),
  };
}

/** The wire form of a source amendment. */
export function amendmentView(a: SourceAmendment) {
  return { id: a.id, source: sourceView(a.source), reason: a.reason, at: a.at.toISOString(), by: { ai_account_id: a.by.aiAccountId, friendly_name: a.by.friendlyName } };
}

/** GET /decision-log/{id}: the entry, its amendments and its place in its chain. */
export async function decisionDetail(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string) {
  const row = await findDecision(stores, ctx, id);
  const chain = await stores.decisions.chain({ workspaceId: row.entry.workspaceId, chainRootId: row.entry.chainRootId });
  const amendments = await stores.decisions.amendments({ workspaceId: row.entry.workspaceId, entryId: row.entry.id });
  const tip = chain.find((r) => r.supersededById === null) ?? row;
  return {
    ...decisionView(row),
    source_amendments: amendments.map(amendmentView),
    chain: { position: chain.findIndex((r) => r.entry.id === row.entry.id) + 1, length: chain.length, tip_id: tip.entry.id, entry_ids: chain.map((r) => r.entry.id) },
  };
}

/** GET /decision-log/{id}/summary. */
export async function decisionSummary(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string) {
  const row = await findDecision(stores, ctx, id);
  const chain = await stores.decisions.chain({ workspaceId: row.entry.workspaceId, chainRootId: row.entry.chainRootId });
  const tip = chain.find((r) => r.supersededById === null) ?? row;
  const e = row.entry;
  return {
    id: e.id,
    number: e.number,
    title: e.title,
    status: row.supersededById === null ? "active" : "superseded",
    tip_id: tip.entry.id,
    one_line: oneLine(e.decisionMd),
    tags: e.tags,
    files: e.files,
    corrections: chain.filter((r) => r.entry.kind === "correction").length,
    decided_at: e.decidedAt.toISOString(),
  };
}
