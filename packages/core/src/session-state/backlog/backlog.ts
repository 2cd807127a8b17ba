import type { CoreDeps } from "../../deps.ts";
import { DomainError, malformed } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { DAY_MS, parseDurationMs } from "../../time/duration.ts";
import { checkMarkdown, checkTags, checkTitle } from "../conventions/fields.ts";
import { BACKLOG_KINDS, TERMINAL_BACKLOG_STATUSES, type BacklogItem, type BacklogKind, type BacklogStatus, type StalenessThresholds } from "./backlog-item.ts";
import type { Project } from "../projects/project.ts";
import { settingMs } from "../projects/projects.ts";
import { compareAndSet } from "../conventions/record-mutation.ts";
import { findInProject, projectArchived, resolveProject } from "../conventions/resolve-project.ts";
import { actorOf, recordChange } from "../conventions/record-history.ts";
import { credentialCaller } from "../../access/principal.ts";
import { sessionOfChange } from "../conventions/session-of-change.ts";

/** Longest snooze of a staleness acknowledgement. */
export const MAX_SNOOZE_MS = 90 * DAY_MS;
/** Events GET /backlog/{id} shows. */
export const BACKLOG_EVENTS_SHOWN = 50;

/** True for resolved and dismissed (absorbing). */
export function isTerminal(status: BacklogStatus): boolean {
  return TERMINAL_BACKLOG_STATUSES.includes(status);
}

/** A project's staleness thresholds. */
export function thresholdsOf(project: Pick<Project, "settings">): StalenessThresholds {
  return { openMs: settingMs(project, "backlog_stale_after"), inProgressMs: settingMs(project, "backlog_in_progress_stale_after") };
}

/** The threshold that applies to an item's status. */
function thresholdMs(item: BacklogItem, t: StalenessThresholds): number {
  return item.status === "in_progress" ? t.inProgressMs : t.openMs;
}

/**
 * Whether an item is stale at `now`: not terminal, and now is past both last_activity_at plus its
 * threshold and the acknowledgement's `until`.
 */
export function isStale(item: BacklogItem, t: StalenessThresholds, now: Date): boolean {
  if (isTerminal(item.status)) return false;
  const pastThreshold = now.getTime() > item.lastActivityAt.getTime() + thresholdMs(item, t);
  const snoozed = item.stalenessAck !== null && now.getTime() <= item.stalenessAck.until.getTime();
  return pastThreshold && !snoozed;
}

/** Top `n` ready items (open, unassigned) by priority then age. */
export async function readyBacklog(stores: Stores, project: Project, n: number): Promise<BacklogItem[]> {
  return stores.backlog.search({ workspaceId: project.workspaceId, projectId: project.id, filters: { ...NO_BACKLOG_FILTERS, ready: true }, sort: "priority", offset: 0, limit: n }).then((r) => r.slice(0, n));
}

/** Stale items (not snoozed) of a project at `now`. */
export async function staleCount(stores: Stores, project: Project, now: Date): Promise<number> {
  return (await stores.backlog.countByStatus({ workspaceId: project.workspaceId, projectId: project.id, now, thresholds: thresholdsOf(project) })).stale;
}

/** No filter. */
export const NO_BACKLOG_FILTERS = { q: null, statuses: null, priorityMin: null, priorityMax: null, kind: null, label: null, assignee: null, unassigned: false, ready: false, createdAfter: null, updatedAfter: null } as const;

/**
 * The item as the caller may see it, with its project.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function findBacklogItem(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<{ item: BacklogItem; project: Project }> {
  const { record: item, project } = await findInProject(stores, ctx, id, "Backlog item", (p) => stores.backlog.find(p));
  return { item, project };
}

function wrongStatus(item: BacklogItem, action: string, allowed: readonly BacklogStatus[]): DomainError {
  return new DomainError("SVC_RESOURCE_CONFLICT", `A ${item.status} item cannot be ${action}.`, { reason: isTerminal(item.status) ? "terminal" : "wrong_status", status: item.status, allowed });
}

function checkPriority(p: number | undefined, fallback: number): number {
  if (p === undefined) return fallback;
  if (!Number.isInteger(p) || p < 0 || p > 4) throw malformed("priority must be an integer from 0 (highest) to 4.", { field: "priority" });
  return p;
}

function checkKind(k: string | undefined, fallback: BacklogKind): BacklogKind {
  if (k === undefined) return fallback;
  if (!(BACKLOG_KINDS as readonly string[]).includes(k)) throw malformed(`kind must be one of ${BACKLOG_KINDS.join(", ")}.`, { field: "kind" });
  return k as BacklogKind;
}

async function sameProjectItem(stores: Stores, workspaceId: string, projectId: string, id: string, field: string): Promise<BacklogItem> {
  const item = isUlid(id) ? await stores.backlog.find({ workspaceId, id }) : null;
  if (item === null || item.projectId !== projectId) throw new DomainError("SVC_RESOURCE_NOT_FOUND", `${field} names no backlog item of this project.`, { resource: "Backlog item", field });
  return item;
}

async function liveAccount(stores: Stores, workspaceId: string, id: string, field: string): Promise<string> {
  const account = isUlid(id) ? await stores.accounts.findById({ workspaceId, accountId: id }) : null;
  if (account === null || account.state === "revoked") throw new DomainError("SVC_RESOURCE_NOT_FOUND", `${field} names no AI account of this workspace.`, { resource: "AI account", field });
  return account.id;
}

async function itemChange(deps: CoreDeps, stores: Stores, ctx: OperationContext, item: BacklogItem, eventType: string, oldValue: Record<string, unknown>, newValue: Record<string, unknown>, buildSessionId?: string | null): Promise<void> {
  const session = buildSessionId === undefined ? await sessionOfChange(stores, ctx, item.projectId, null) : buildSessionId;
  await recordChange(deps, stores, ctx, { projectId: item.projectId, subjectType: "backlog_item", subjectId: item.id, eventType, oldValue, newValue: { status: item.status, ...newValue }, buildSessionId: session, at: item.updatedAt });
}

/** What POST /backlog takes. */
export interface CreateBacklogInput {
  project_id?: string;
  title: string;
  description_md?: string;
  acceptance_criteria_md?: string;
  kind?: string;
  priority?: number;
  labels?: string[];
  discovered_from_id?: string;
  build_session_id?: string;
  skip_triage?: boolean;
}

/**
 * Files a backlog item: untriaged, or open with skip_triage (`backlog_item.created`).
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND (project, discovered_from_id,
 *   build_session_id), SVC_RESOURCE_CONFLICT (project archived).
 */
export async function createBacklogItem(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: CreateBacklogInput, origin: { importRow?: string } = {}): Promise<{ item: BacklogItem; project: Project }> {
  const project = await resolveProject(stores, ctx, input.project_id, { forWrite: true });
  const title = checkTitle(input.title);
  const descriptionMd = checkMarkdown(input.description_md, "description_md");
  const acceptanceCriteriaMd = checkMarkdown(input.acceptance_criteria_md, "acceptance_criteria_md");
  const labels = checkTags(input.labels, "labels");
  const kind = checkKind(input.kind, "task");
  const priority = checkPriority(input.priority, 2);
  const discoveredFromId = input.discovered_from_id === undefined ? null : (await sameProjectItem(stores, project.workspaceId, project.id, input.discovered_from_id, "discovered_from_id")).id;
  const buildSessionId = await sessionOfChange(stores, ctx, project.id, input.build_session_id);
  const now = deps.clock.now();
  const item: BacklogItem = {
    workspaceId: project.workspaceId,
    id: deps.ids.next(),
    projectId: project.id,
    number: await stores.projects.nextNumber({ workspaceId: project.workspaceId, projectId: project.id, sequence: "backlog" }),
    title,
    descriptionMd,
    acceptanceCriteriaMd,
    kind,
    labels,
    priority,
    status: input.skip_triage === true ? "open" : "untriaged",
    assigneeAiAccountId: null,
    discoveredFromId,
    duplicateOfId: null,
    source: { buildSessionId, decisionId: null, importRow: origin.importRow ?? null },
    closing: { prUrl: null, commitSha: null, notesMd: [], reason: null },
    resolvedAt: null,
    dismissedAt: null,
    lastActivityAt: now,
    stalenessAck: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: actorOf(ctx),
  };
  await stores.backlog.insert({ item });
  await itemChange(deps, stores, ctx, item, "created", {}, { number: item.number, title }, buildSessionId);
  return { item, project };
}

async function mutate(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, decide: (item: BacklogItem, project: Project) => BacklogItem | Promise<BacklogItem>): Promise<{ before: BacklogItem; after: BacklogItem; project: Project }> {
  let project: Project | null = null;
  const r = await compareAndSet(
    async () => {
      const found = await findBacklogItem(stores, ctx, id);
      project = found.project;
      return found.item;
    },
    (item) => {
      const p = project as unknown as Project;
      return decide(item, p);
    },
    (next, expectedVersion) => stores.backlog.replace({ item: next, expectedVersion }),
  );
  return { ...r, project: project as unknown as Project };
}

function writable(project: Project): void {
  if (project.state === "archived") throw projectArchived(project.id);
}

/** What triage takes. */
export interface TriageInput {
  decision: "accept" | "dismiss" | "duplicate";
  priority?: number;
  labels?: string[];
  reason?: string;
  duplicate_of_id?: string;
}

/** Triages an untriaged item: accept (open), dismiss (with a reason) or duplicate (of another item of the project). */
export async function triageBacklogItem(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: TriageInput) {
  const now = deps.clock.now();
  const r = await mutate(deps, stores, ctx, id, async (item, project) => {
    writable(project);
    if (item.status !== "untriaged") throw wrongStatus(item, "triaged", ["untriaged"]);
    const touched = { ...item, lastActivityAt: now, updatedAt: now };
    if (input.decision === "accept") return { ...touched, status: "open" as const, priority: checkPriority(input.priority, item.priority), labels: input.labels === undefined ? item.labels : checkTags(input.labels, "labels") };
    if (input.decision === "dismiss") {
      if (input.reason === undefined || input.reason.trim().length === 0) throw malformed("A dismissal needs a reason.", { field: "reason" });
      return { ...touched, status: "dismissed" as const, dismissedAt: now, closing: { ...item.closing, reason: checkTitle(input.reason, "reason", 2_000) } };
    }
    if (input.duplicate_of_id === undefined) throw malformed("duplicate_of_id is required for a duplicate.", { field: "duplicate_of_id" });
    if (input.duplicate_of_id === item.id) throw malformed("An item cannot duplicate itself.", { field: "duplicate_of_id" });
    const original = await sameProjectItem(stores, item.workspaceId, item.projectId, input.duplicate_of_id, "duplicate_of_id");
    return { ...touched, status: "dismissed" as const, dismissedAt: now, duplicateOfId: original.id, closing: { ...item.closing, reason: input.reason === undefined || input.reason.trim() === "" ? `duplicate of #${original.number}` : checkTitle(input.reason, "reason", 2_000) } };
  });
  await itemChange(deps, stores, ctx, r.after, "triaged", { status: r.before.status }, { decision: input.decision, duplicate_of_id: r.after.duplicateOfId });
  return r;
}

/** Takes an open, unassigned item: in_progress, assigned to the caller or the named account. */
export async function assignBacklogItem(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { assignee_ai_account_id?: string }) {
  const now = deps.clock.now();
  const assignee = input.assignee_ai_account_id === undefined ? credentialCaller(ctx.principal).account.id : await liveAccount(stores, ctx.principal.workspace.id, input.assignee_ai_account_id, "assignee_ai_account_id");
  const r = await mutate(deps, stores, ctx, id, (item, project) => {
    writable(project);
    if (item.status !== "open") throw wrongStatus(item, "assigned", ["open"]);
    if (item.assigneeAiAccountId !== null) throw new DomainError("SVC_RESOURCE_CONFLICT", "The item is already assigned.", { reason: "already_assigned", assignee_ai_account_id: item.assigneeAiAccountId });
    return { ...item, status: "in_progress", assigneeAiAccountId: assignee, lastActivityAt: now, updatedAt: now };
  });
  await itemChange(deps, stores, ctx, r.after, "assigned", { status: r.before.status }, { assignee_ai_account_id: assignee });
  return r;
}

/** Hands an in_progress item to another account, or back to open (null). */
export async function reassignBacklogItem(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { assignee_ai_account_id: string | null; reason: string }) {
  const now = deps.clock.now();
  const reason = checkTitle(input.reason, "reason", 2_000);
  const assignee = input.assignee_ai_account_id === null ? null : await liveAccount(stores, ctx.principal.workspace.id, input.assignee_ai_account_id, "assignee_ai_account_id");
  const r = await mutate(deps, stores, ctx, id, (item, project) => {
    writable(project);
    if (item.status !== "in_progress") throw wrongStatus(item, "reassigned", ["in_progress"]);
    return { ...item, status: assignee === null ? "open" : "in_progress", assigneeAiAccountId: assignee, lastActivityAt: now, updatedAt: now };
  });
  await itemChange(deps, stores, ctx, r.after, "reassigned", { assignee_ai_account_id: r.before.assigneeAiAccountId }, { assignee_ai_account_id: assignee, reason });
  return r;
}

/** Changes the priority of an item that is not terminal. */
export async function reprioritizeBacklogItem(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { priority: number; reason?: string }) {
  const now = deps.clock.now();
  const priority = checkPriority(input.priority, 2);
  const r = await mutate(deps, stores, ctx, id, (item, project) => {
    writable(project);
    if (isTerminal(item.status)) throw wrongStatus(item, "reprioritized", ["untriaged", "open", "in_progress"]);
    return { ...item, priority, lastActivityAt: now, updatedAt: now };
  });
  await itemChange(deps, stores, ctx, r.after, "reprioritized", { priority: r.before.priority }, { priority, reason: input.reason ?? null });
  return r;
}

/** Changes the text, labels or kind of an item that is not terminal, guarded by expected_version. */
export async function amendBacklogItem(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { expected_version?: number; title?: string; description_md?: string; acceptance_criteria_md?: string; labels?: string[]; kind?: string }) {
  const now = deps.clock.now();
  const r = await mutate(deps, stores, ctx, id, (item, project) => {
    writable(project);
    if (isTerminal(item.status)) throw wrongStatus(item, "amended", ["untriaged", "open", "in_progress"]);
    if (input.expected_version !== undefined && input.expected_version !== item.version) throw new DomainError("SVC_RESOURCE_CONFLICT", "The item changed since the version you read.", { reason: "version_conflict", current_version: item.version });
    return {
      ...item,
      title: input.title === undefined ? item.title : checkTitle(input.title),
      descriptionMd: input.description_md === undefined ? item.descriptionMd : checkMarkdown(input.description_md, "description_md"),
      acceptanceCriteriaMd: input.acceptance_criteria_md === undefined ? item.acceptanceCriteriaMd : checkMarkdown(input.acceptance_criteria_md, "acceptance_criteria_md"),
      labels: input.labels === undefined ? item.labels : checkTags(input.labels, "labels"),
      kind: checkKind(input.kind, item.kind),
      lastActivityAt: now,
      updatedAt: now,
    };
  });
  const changed = Object.keys(input).filter((k) => k !== "expected_version");
  await itemChange(deps, stores, ctx, r.after, "amended", {}, { fields: changed });
  return r;
}

/** What closing-notes takes. */
export interface ClosingNotesInput {
  outcome?: "resolved" | "dismissed";
  pr_url?: string;
  commit_sha?: string;
  notes_md?: string;
  reason?: string;
}

/**
 * Closes an item (resolved: a PR, a commit or notes; dismissed: a reason), or appends a note to a
 * closed one (outcome absent or the same; another outcome is 409: terminal states are absorbing).
 */
export async function closingNotes(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: ClosingNotesInput) {
  const now = deps.clock.now();
  const notes = input.notes_md === undefined || input.notes_md.trim() === "" ? null : checkMarkdown(input.notes_md, "notes_md");
  if (input.pr_url !== undefined) {
    let ok = false;
    try {
      ok = ["https:", "http:"].includes(new URL(input.pr_url).protocol) && input.pr_url.length <= 2048;
    } catch {
      ok = false;
    }
    if (!ok) throw malformed("pr_url must be an http(s) URL.", { field: "pr_url" });
  }
  if (input.commit_sha !== undefined && !/^[0-9a-f]{7,64}$/i.test(input.commit_sha)) throw malformed("commit_sha must be 7 to 64 hexadecimal characters.", { field: "commit_sha" });
  let eventType = "note_added";
  const r = await mutate(deps, stores, ctx, id, (item, project) => {
    writable(project);
    if (isTerminal(item.status)) {
      if (input.outcome !== undefined && input.outcome !== item.status) throw new DomainError("SVC_RESOURCE_CONFLICT", `The item is ${item.status}; that is final.`, { reason: "terminal", status: item.status });
      if (notes === null) throw malformed("A closed item takes only notes_md.", { field: "notes_md" });
      eventType = "note_added";
      return { ...item, closing: { ...item.closing, notesMd: [...item.closing.notesMd, notes] }, updatedAt: now };
    }
    if (input.outcome === undefined) throw malformed("outcome (resolved or dismissed) is required to close an item.", { field: "outcome" });
    const closing = { ...item.closing, notesMd: notes === null ? item.closing.notesMd : [...item.closing.notesMd, notes] };
    if (input.outcome === "resolved") {
      if (input.pr_url === undefined && input.commit_sha === undefined && notes === null) throw malformed("Resolving needs a pr_url, a commit_sha or notes_md.", { field: "outcome", reason: "no_evidence" });
      eventType = "resolved";
      return { ...item, status: "resolved", resolvedAt: now, closing: { ...closing, prUrl: input.pr_url ?? null, commitSha: input.commit_sha ?? null }, lastActivityAt: now, updatedAt: now };
    }
    if (input.reason === undefined || input.reason.trim() === "") throw malformed("Dismissing needs a reason.", { field: "reason" });
    eventType = "dismissed";
    return { ...item, status: "dismissed", dismissedAt: now, closing: { ...closing, reason: checkTitle(input.reason, "reason", 2_000) }, lastActivityAt: now, updatedAt: now };
  });
  await itemChange(deps, stores, ctx, r.after, eventType, { status: r.before.status }, { pr_url: r.after.closing.prUrl, commit_sha: r.after.closing.commitSha, note: notes !== null });
  return r;
}

/** Acknowledges that a stale item is stale: snoozes it (default: its threshold, at most P90D). Not activity. Not stale: 409 not_stale. */
export async function acknowledgeStaleness(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { reason: string; snooze?: string }) {
  const now = deps.clock.now();
  const reason = checkTitle(input.reason, "reason", 2_000);
  const r = await mutate(deps, stores, ctx, id, (item, project) => {
    writable(project);
    if (isTerminal(item.status)) throw wrongStatus(item, "acknowledged as stale", ["untriaged", "open", "in_progress"]);
    const t = thresholdsOf(project);
    if (!isStale(item, t, now)) throw new DomainError("SVC_RESOURCE_CONFLICT", "The item is not stale.", { reason: "not_stale" });
    const snoozeMs = input.snooze === undefined ? thresholdMs(item, t) : parseDurationMs(input.snooze, "snooze", { minMs: 60_000, maxMs: MAX_SNOOZE_MS });
    return { ...item, stalenessAck: { at: now, by: actorOf(ctx), reason, until: new Date(now.getTime() + Math.min(snoozeMs, MAX_SNOOZE_MS)), count: (item.stalenessAck?.count ?? 0) + 1 }, updatedAt: now };
  });
  await itemChange(deps, stores, ctx, r.after, "staleness_acknowledged", {}, { until: r.after.stalenessAck?.until.toISOString() ?? null, reason });
  return r;
}

/** The wire form of a backlog item at `now` (stale and days_inactive derived). */
export function backlogView(i: BacklogItem, project: Pick<Project, "settings">, now: Date) {
  return {
    id: i.id,
    project_id: i.projectId,
    number: i.number,
    title: i.title,
    description_md: i.descriptionMd,
    acceptance_criteria_md: i.acceptanceCriteriaMd,
    kind: i.kind,
    labels: i.labels,
    priority: i.priority,
    status: i.status,
    assignee_ai_account_id: i.assigneeAiAccountId,
    discovered_from_id: i.discoveredFromId,
    duplicate_of_id: i.duplicateOfId,
    source: { build_session_id: i.source.buildSessionId, decision_id: i.source.decisionId, import_row: i.source.importRow },
    closing: { pr_url: i.closing.prUrl, commit_sha: i.closing.commitSha, notes_md: i.closing.notesMd, reason: i.closing.reason },
    resolved_at: i.resolvedAt?.toISOString() ?? null,
    dismissed_at: i.dismissedAt?.toISOString() ?? null,
    last_activity_at: i.lastActivityAt.toISOString(),
    staleness_ack: i.stalenessAck === null ? null : { at: i.stalenessAck.at.toISOString(), by: { ai_account_id: i.stalenessAck.by.aiAccountId, friendly_name: i.stalenessAck.by.friendlyName }, reason: i.stalenessAck.reason, until: i.stalenessAck.until.toISOString(), count: i.stalenessAck.count },
    stale: isStale(i, thresholdsOf(project), now),
    days_inactive: Math.max(0, Math.floor((now.getTime() - i.lastActivityAt.getTime()) / DAY_MS)),
    version: i.version,
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
    created_by: { ai_account_id: i.createdBy.aiAccountId, friendly_name: i.createdBy.friendlyName },
  };
}
