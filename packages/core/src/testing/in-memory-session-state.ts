import type { BacklogStore, BuildSessionStore, DecisionLogStore, ProjectStore, RecordEventStore, ReplaceResult } from "../ports.ts";
import { isStale } from "../session-state/backlog/backlog.ts";
import { TERMINAL_BACKLOG_STATUSES } from "../session-state/backlog/backlog-item.ts";
import type { BacklogFilters, BacklogItem, BacklogSort, BacklogStatus, StalenessThresholds } from "../session-state/backlog/backlog-item.ts";
import type { BuildSession, BuildSessionFilters } from "../session-state/build-sessions/build-session.ts";
import type { DecisionAuthor, DecisionEntry, DecisionListFilters, DecisionRow, DecisionSearchHit, SourceAmendment } from "../session-state/decision-log/decision-entry.ts";
import type { Project, ProjectChanges, ProjectState } from "../session-state/projects/project.ts";
import type { RecordEvent } from "../session-state/conventions/record-event.ts";
import { highlight } from "../session-state/text/markdown-text.ts";
import { tokenize } from "../session-state/text/tokens.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

interface ProjectRow {
  project: Project;
  sequences: { decision: number; backlog: number };
}

/** The rows behind the in-memory session-state stores. */
export class InMemorySessionStateTables {
  /** Keyed by `workspaceId/projectId`. */
  readonly projects = new InMemoryTable<ProjectRow>();
  /** Keyed by `workspaceId/entryId`. */
  readonly decisions = new InMemoryTable<DecisionEntry>();
  /** Keyed by `workspaceId/amendmentId`. */
  readonly amendments = new InMemoryTable<SourceAmendment>();
  /** Keyed by `workspaceId/eventId`. */
  readonly events = new InMemoryTable<RecordEvent>();
  /** Keyed by `workspaceId/sessionId`. */
  readonly sessions = new InMemoryTable<BuildSession>();
  /** Keyed by `workspaceId/itemId`. */
  readonly backlog = new InMemoryTable<BacklogItem>();
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// Each method reads and writes synchronously between its first and last await-free line, so
// each call is atomic with respect to other calls, as one statement is in PostgreSQL.

/** In-memory ProjectStore. */
export class InMemoryProjectStore implements ProjectStore {
  constructor(
    private readonly tables: InMemorySessionStateTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private rows(workspaceId: string): ProjectRow[] {
    return this.tables.projects.values().filter((r) => r.project.workspaceId === workspaceId);
  }

  private save(row: ProjectRow): void {
    this.tables.projects.set(this.tx, `${row.project.workspaceId}/${row.project.id}`, row);
  }

  async insert(p: { project: Project }): Promise<{ kind: "created"; project: Project } | { kind: "slug_taken"; existingId: string }> {
    const rows = this.rows(p.project.workspaceId);
    const holder = rows.find((r) => r.project.slug === p.project.slug);
    if (holder !== undefined) return { kind: "slug_taken", existingId: holder.project.id };
    const project = p.project.isDefault && rows.some((r) => r.project.isDefault) ? { ...p.project, isDefault: false } : p.project;
    this.save({ project, sequences: { decision: 0, backlog: 0 } });
    return { kind: "created", project };
  }

  async find(p: { workspaceId: string; projectId: string }): Promise<Project | null> {
    return this.tables.projects.get(`${p.workspaceId}/${p.projectId}`)?.project ?? null;
  }

  async findDefault(p: { workspaceId: string }): Promise<Project | null> {
    return this.rows(p.workspaceId).find((r) => r.project.isDefault)?.project ?? null;
  }

  async list(p: { workspaceId: string; state: ProjectState | null; onlyId: string | null; after: string | null; limit: number }): Promise<Project[]> {
    return this.rows(p.workspaceId)
      .map((r) => r.project)
      .filter((x) => (p.state === null || x.state === p.state) && (p.onlyId === null || x.id === p.onlyId) && (p.after === null || x.id > p.after))
      .sort(byId)
      .slice(0, p.limit + 1);
  }

  async countActive(p: { workspaceId: string }): Promise<number> {
    return this.rows(p.workspaceId).filter((r) => r.project.state === "active").length;
  }

  async update(p: { workspaceId: string; projectId: string; expectedVersion: number | null; changes: ProjectChanges; now: Date }) {
    const row = this.tables.projects.get(`${p.workspaceId}/${p.projectId}`);
    if (row === undefined) return { kind: "not_found" as const };
    if (row.project.state === "archived") return { kind: "archived" as const };
    if (p.expectedVersion !== null && p.expectedVersion !== row.project.version) return { kind: "version_conflict" as const, current: row.project };
    const project: Project = { ...row.project, ...p.changes, version: row.project.version + 1, updatedAt: p.now };
    this.save({ ...row, project });
    return { kind: "updated" as const, project };
  }

  async setState(p: { workspaceId: string; projectId: string; to: ProjectState; now: Date }) {
    const row = this.tables.projects.get(`${p.workspaceId}/${p.projectId}`);
    if (row === undefined) return { kind: "not_found" as const };
    if (row.project.state === p.to) return { kind: "wrong_state" as const, current: row.project };
    if (p.to === "archived" && row.project.isDefault) return { kind: "is_default" as const };
    const project: Project = { ...row.project, state: p.to, archivedAt: p.to === "archived" ? p.now : null, version: row.project.version + 1, updatedAt: p.now };
    this.save({ ...row, project });
    return { kind: "changed" as const, project };
  }

  async makeDefault(p: { workspaceId: string; projectId: string; now: Date }) {
    const row = this.tables.projects.get(`${p.workspaceId}/${p.projectId}`);
    if (row === undefined) return { kind: "not_found" as const };
    if (row.project.state === "archived") return { kind: "archived" as const };
    if (row.project.isDefault) return { kind: "default" as const, project: row.project, previousId: row.project.id, changed: false };
    const previous = this.rows(p.workspaceId).find((r) => r.project.isDefault);
    if (previous !== undefined) this.save({ ...previous, project: { ...previous.project, isDefault: false, version: previous.project.version + 1, updatedAt: p.now } });
    const project: Project = { ...row.project, isDefault: true, version: row.project.version + 1, updatedAt: p.now };
    this.save({ ...row, project });
    return { kind: "default" as const, project, previousId: previous?.project.id ?? null, changed: true };
  }

  async nextNumber(p: { workspaceId: string; projectId: string; sequence: "decision" | "backlog" }): Promise<number> {
    const row = this.tables.projects.get(`${p.workspaceId}/${p.projectId}`);
    if (row === undefined) throw new Error("InMemoryProjectStore.nextNumber: no such project");
    const next = row.sequences[p.sequence] + 1;
    this.save({ ...row, sequences: { ...row.sequences, [p.sequence]: next } });
    return next;
  }
}

/** In-memory DecisionLogStore (append-only: it has no method that changes or removes an entry). */
export class InMemoryDecisionLogStore implements DecisionLogStore {
  constructor(
    private readonly tables: InMemorySessionStateTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private entries(workspaceId: string): DecisionEntry[] {
    return this.tables.decisions.values().filter((e) => e.workspaceId === workspaceId);
  }

  private rowOf(entry: DecisionEntry, all: DecisionEntry[]): DecisionRow {
    return { entry, supersededById: all.find((e) => e.supersedesId === entry.id)?.id ?? null };
  }

  async append(p: { entry: DecisionEntry }): Promise<{ kind: "appended" } | { kind: "not_tip"; currentId: string }> {
    const all = this.entries(p.entry.workspaceId);
    if (p.entry.supersedesId !== null) {
      const successor = all.find((e) => e.supersedesId === p.entry.supersedesId);
      if (successor !== undefined) {
        const chain = all.filter((e) => e.chainRootId === p.entry.chainRootId);
        const tip = chain.find((e) => !chain.some((x) => x.supersedesId === e.id));
        return { kind: "not_tip", currentId: tip?.id ?? successor.id };
      }
    }
    this.tables.decisions.set(this.tx, `${p.entry.workspaceId}/${p.entry.id}`, p.entry);
    return { kind: "appended" };
  }

  async find(p: { workspaceId: string; id: string }): Promise<DecisionRow | null> {
    const entry = this.tables.decisions.get(`${p.workspaceId}/${p.id}`);
    return entry === undefined ? null : this.rowOf(entry, this.entries(p.workspaceId));
  }

  async chain(p: { workspaceId: string; chainRootId: string }): Promise<DecisionRow[]> {
    const all = this.entries(p.workspaceId);
    return all
      .filter((e) => e.chainRootId === p.chainRootId)
      .sort(byId)
      .map((e) => this.rowOf(e, all));
  }

  async list(p: { workspaceId: string; projectId: string; filters: DecisionListFilters; after: string | null; limit: number }): Promise<DecisionRow[]> {
    const all = this.entries(p.workspaceId);
    const f = p.filters;
    return all
      .filter((e) => e.projectId === p.projectId && (p.after === null || e.id < p.after))
      .map((e) => this.rowOf(e, all))
      .filter(
        ({ entry: e, supersededById }) =>
          (f.status === null || (f.status === "active") === (supersededById === null)) &&
          (f.kind === null || e.kind === f.kind) &&
          (f.tag === null || e.tags.includes(f.tag)) &&
          (f.authorId === null || e.createdBy.aiAccountId === f.authorId) &&
          (f.buildSessionId === null || e.buildSessionId === f.buildSessionId) &&
          (f.since === null || e.decidedAt.getTime() >= f.since.getTime()) &&
          (f.until === null || e.decidedAt.getTime() < f.until.getTime()) &&
          (f.file === null || e.files.includes(f.file)),
      )
      .sort((a, b) => byId(b.entry, a.entry))
      .slice(0, p.limit + 1);
  }

  async search(p: { workspaceId: string; projectId: string; q: string; offset: number; limit: number }): Promise<DecisionSearchHit[]> {
    const terms = tokenize(p.q.replace(/(^|\s)-\S+/g, " "));
    if (terms.length === 0) return [];
    const all = this.entries(p.workspaceId);
    const hits: DecisionSearchHit[] = [];
    for (const e of all.filter((x) => x.projectId === p.projectId)) {
      const tokens = tokenize([e.title, e.contextMd, e.decisionMd, e.rationaleMd, e.tags.join(" ")].join(" "));
      if (!terms.every((t) => tokens.includes(t))) continue;
      const rank = tokens.filter((t) => terms.includes(t)).length / tokens.length;
      hits.push({ row: this.rowOf(e, all), rank, snippet: highlight(`${e.title}. ${e.decisionMd}`, terms) });
    }
    return hits.sort((a, b) => b.rank - a.rank || byId(b.row.entry, a.row.entry)).slice(p.offset, p.offset + p.limit + 1);
  }

  async authors(p: { workspaceId: string; projectId: string }): Promise<DecisionAuthor[]> {
    const by = new Map<string, DecisionAuthor>();
    for (const e of this.entries(p.workspaceId).filter((x) => x.projectId === p.projectId).sort(byId)) {
      const a = by.get(e.createdBy.aiAccountId) ?? { aiAccountId: e.createdBy.aiAccountId, friendlyName: e.createdBy.friendlyName, entries: 0, corrections: 0, firstAt: e.recordedAt, lastAt: e.recordedAt };
      a.entries++;
      if (e.kind === "correction") a.corrections++;
      a.friendlyName = e.createdBy.friendlyName;
      if (e.recordedAt < a.firstAt) a.firstAt = e.recordedAt;
      if (e.recordedAt > a.lastAt) a.lastAt = e.recordedAt;
      by.set(a.aiAccountId, a);
    }
    return [...by.values()].sort((a, b) => b.entries - a.entries || (a.aiAccountId < b.aiAccountId ? -1 : 1));
  }

  async countByDay(p: { workspaceId: string; projectId: string; since: Date; until: Date }): Promise<{ day: string; count: number }[]> {
    const days = new Map<string, number>();
    for (const e of this.entries(p.workspaceId)) {
      if (e.projectId !== p.projectId || e.decidedAt < p.since || e.decidedAt >= p.until) continue;
      const day = e.decidedAt.toISOString().slice(0, 10);
      days.set(day, (days.get(day) ?? 0) + 1);
    }
    return [...days.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, count]) => ({ day, count }));
  }

  async count(p: { workspaceId: string; projectId: string }): Promise<number> {
    return this.entries(p.workspaceId).filter((e) => e.projectId === p.projectId).length;
  }

  async countForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<{ decisions: number; corrections: number }> {
    const mine = this.entries(p.workspaceId).filter((e) => e.buildSessionId !== null && p.buildSessionIds.includes(e.buildSessionId));
    return { decisions: mine.filter((e) => e.kind === "decision").length, corrections: mine.filter((e) => e.kind === "correction").length };
  }

  async appendAmendment(p: { amendment: SourceAmendment }): Promise<void> {
    this.tables.amendments.set(this.tx, `${p.amendment.workspaceId}/${p.amendment.id}`, p.amendment);
  }

  async amendments(p: { workspaceId: string; entryId: string }): Promise<SourceAmendment[]> {
    return this.tables.amendments
      .values()
      .filter((a) => a.workspaceId === p.workspaceId && a.entryId === p.entryId)
      .sort(byId);
  }
}

/** In-memory RecordEventStore. */
export class InMemoryRecordEventStore implements RecordEventStore {
  constructor(
    private readonly tables: InMemorySessionStateTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async append(p: { event: RecordEvent }): Promise<void> {
    this.tables.events.set(this.tx, `${p.event.workspaceId}/${p.event.id}`, p.event);
  }

  async listFor(p: { workspaceId: string; subjectType: string; subjectId: string; limit: number }): Promise<RecordEvent[]> {
    return this.tables.events
      .values()
      .filter((e) => e.workspaceId === p.workspaceId && e.subjectType === p.subjectType && e.subjectId === p.subjectId)
      .sort((a, b) => byId(b, a))
      .slice(0, p.limit);
  }

  async listForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<RecordEvent[]> {
    return this.tables.events
      .values()
      .filter((e) => e.workspaceId === p.workspaceId && e.buildSessionId !== null && p.buildSessionIds.includes(e.buildSessionId))
      .sort(byId);
  }

  async listByType(p: { workspaceId: string; projectId: string; subjectType: string; eventTypes: readonly string[]; since: Date; until: Date; limit: number }): Promise<RecordEvent[]> {
    return this.tables.events
      .values()
      .filter((e) => e.workspaceId === p.workspaceId && e.projectId === p.projectId && e.subjectType === p.subjectType && p.eventTypes.includes(e.eventType) && e.at >= p.since && e.at <= p.until)
      .sort(byId)
      .slice(0, p.limit);
  }
}

const sessionText = (s: BuildSession) =>
  tokenize([s.title, s.goal, s.summaryMd, ...s.leadLines.map((l) => l.text), s.currentState.focus, ...s.currentState.next_steps, ...s.currentState.blockers, ...s.currentState.open_questions, s.currentState.notes_md].join(" "));

/** In-memory BuildSessionStore. */
export class InMemoryBuildSessionStore implements BuildSessionStore {
  constructor(
    private readonly tables: InMemorySessionStateTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private all(workspaceId: string): BuildSession[] {
    return this.tables.sessions.values().filter((s) => s.workspaceId === workspaceId);
  }

  async insert(p: { session: BuildSession }): Promise<void> {
    this.tables.sessions.set(this.tx, `${p.session.workspaceId}/${p.session.id}`, p.session);
  }

  async find(p: { workspaceId: string; id: string }): Promise<BuildSession | null> {
    return this.tables.sessions.get(`${p.workspaceId}/${p.id}`) ?? null;
  }

  async replace(p: { session: BuildSession; expectedVersion: number }): Promise<ReplaceResult> {
    const current = this.tables.sessions.get(`${p.session.workspaceId}/${p.session.id}`);
    if (current === undefined || current.version !== p.expectedVersion) return { kind: "conflict" };
    this.tables.sessions.set(this.tx, `${p.session.workspaceId}/${p.session.id}`, p.session);
    return { kind: "replaced" };
  }

  async insertContinuation(p: { predecessor: BuildSession; expectedVersion: number; successor: BuildSession }): Promise<ReplaceResult> {
    if (this.all(p.successor.workspaceId).some((s) => s.previousSessionId === p.predecessor.id)) return { kind: "conflict" };
    const replaced = await this.replace({ session: p.predecessor, expectedVersion: p.expectedVersion });
    if (replaced.kind === "replaced") await this.insert({ session: p.successor });
    return replaced;
  }

  async latestInProject(p: { workspaceId: string; projectId: string; excludeId: string | null }): Promise<BuildSession | null> {
    return this.all(p.workspaceId).filter((s) => s.projectId === p.projectId && s.id !== p.excludeId).sort((a, b) => byId(b, a))[0] ?? null;
  }

  async activeFor(p: { workspaceId: string; projectId: string; aiAccountId: string }): Promise<BuildSession | null> {
    return this.all(p.workspaceId).filter((s) => s.projectId === p.projectId && s.state === "active" && s.createdBy.aiAccountId === p.aiAccountId).sort((a, b) => byId(b, a))[0] ?? null;
  }

  async search(p: { workspaceId: string; projectId: string; filters: BuildSessionFilters; now: Date; silenceMs: number; after: string | null; limit: number }): Promise<BuildSession[]> {
    const f = p.filters;
    const terms = f.q === null ? [] : tokenize(f.q);
    return this.all(p.workspaceId)
      .filter((s) => {
        const live = s.state === "active" && p.now.getTime() - s.lastPingAt.getTime() <= p.silenceMs;
        const silent = s.state === "active" && !live;
        return (
          s.projectId === p.projectId &&
          (p.after === null || s.id < p.after) &&
          (f.state === null || s.state === f.state) &&
          (f.liveness === null || (f.liveness === "live" ? live : silent)) &&
          (f.aiAccountId === null || s.createdBy.aiAccountId === f.aiAccountId) &&
          (f.startedAfter === null || s.startedAt >= f.startedAfter) &&
          (f.startedBefore === null || s.startedAt < f.startedBefore) &&
          (f.hasOpenPr === null || s.prs.some((x) => x.state === "open" || x.state === "draft") === f.hasOpenPr) &&
          (f.prUrl === null || s.prs.some((x) => x.url === f.prUrl)) &&
          (f.chainRootId === null || s.chainRootId === f.chainRootId) &&
          (terms.length === 0 || terms.every((t) => sessionText(s).includes(t)))
        );
      })
      .sort((a, b) => byId(b, a))
      .slice(0, p.limit + 1);
  }

  async chain(p: { workspaceId: string; chainRootId: string }): Promise<BuildSession[]> {
    return this.all(p.workspaceId).filter((s) => s.chainRootId === p.chainRootId).sort(byId);
  }

  async countActive(p: { workspaceId: string; projectId: string }): Promise<number> {
    return this.all(p.workspaceId).filter((s) => s.projectId === p.projectId && s.state === "active").length;
  }

  async touchedBetween(p: { workspaceId: string; projectId: string; since: Date; until: Date; limit: number }): Promise<BuildSession[]> {
    return this.all(p.workspaceId)
      .filter((s) => s.projectId === p.projectId && s.updatedAt >= p.since && s.updatedAt <= p.until)
      .sort((a, b) => a.updatedAt.getTime() - b.updatedAt.getTime() || byId(a, b))
      .slice(0, p.limit);
  }
}

const backlogText = (i: BacklogItem) => tokenize([i.title, i.descriptionMd, i.acceptanceCriteriaMd, i.labels.join(" ")].join(" "));

function backlogOrder(sort: BacklogSort): (a: BacklogItem, b: BacklogItem) => number {
  if (sort === "priority") return (a, b) => a.priority - b.priority || byId(a, b);
  if (sort === "oldest") return byId;
  if (sort === "updated") return (a, b) => b.lastActivityAt.getTime() - a.lastActivityAt.getTime() || byId(b, a);
  return (a, b) => byId(b, a);
}

/** In-memory BacklogStore (a terminal status never changes: `replace` refuses it as the database does). */
export class InMemoryBacklogStore implements BacklogStore {
  constructor(
    private readonly tables: InMemorySessionStateTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private all(workspaceId: string, projectId: string): BacklogItem[] {
    return this.tables.backlog.values().filter((i) => i.workspaceId === workspaceId && i.projectId === projectId);
  }

  async insert(p: { item: BacklogItem }): Promise<void> {
    this.tables.backlog.set(this.tx, `${p.item.workspaceId}/${p.item.id}`, p.item);
  }

  async find(p: { workspaceId: string; id: string }): Promise<BacklogItem | null> {
    return this.tables.backlog.get(`${p.workspaceId}/${p.id}`) ?? null;
  }

  async replace(p: { item: BacklogItem; expectedVersion: number }): Promise<ReplaceResult> {
    const current = this.tables.backlog.get(`${p.item.workspaceId}/${p.item.id}`);
    if (current === undefined || current.version !== p.expectedVersion) return { kind: "conflict" };
    if (TERMINAL_BACKLOG_STATUSES.includes(current.status) && p.item.status !== current.status) return { kind: "conflict" };
    this.tables.backlog.set(this.tx, `${p.item.workspaceId}/${p.item.id}`, p.item);
    return { kind: "replaced" };
  }

  async search(p: { workspaceId: string; projectId: string; filters: BacklogFilters; sort: BacklogSort; offset: number; limit: number }): Promise<BacklogItem[]> {
    const f = p.filters;
    const terms = f.q === null ? [] : tokenize(f.q);
    return this.all(p.workspaceId, p.projectId)
      .filter(
        (i) =>
          (f.statuses === null || f.statuses.includes(i.status)) &&
          (f.priorityMin === null || i.priority >= f.priorityMin) &&
          (f.priorityMax === null || i.priority <= f.priorityMax) &&
          (f.kind === null || i.kind === f.kind) &&
          (f.label === null || i.labels.includes(f.label)) &&
          (f.assignee === null || i.assigneeAiAccountId === f.assignee) &&
          (!f.unassigned || i.assigneeAiAccountId === null) &&
          (!f.ready || (i.status === "open" && i.assigneeAiAccountId === null)) &&
          (f.createdAfter === null || i.createdAt >= f.createdAfter) &&
          (f.updatedAfter === null || i.updatedAt >= f.updatedAfter) &&
          (terms.length === 0 || terms.every((t) => backlogText(i).includes(t))),
      )
      .sort(backlogOrder(p.sort))
      .slice(p.offset, p.offset + p.limit + 1);
  }

  async stale(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds; status: BacklogStatus | null; assignee: string | null; olderThanMs: number | null; includeSnoozed: boolean; offset: number; limit: number }): Promise<BacklogItem[]> {
    return this.all(p.workspaceId, p.projectId)
      .filter((i) => {
        if (TERMINAL_BACKLOG_STATUSES.includes(i.status)) return false;
        const asIfUnsnoozed = { ...i, stalenessAck: null };
        if (!isStale(p.includeSnoozed ? asIfUnsnoozed : i, p.thresholds, p.now)) return false;
        return (p.status === null || i.status === p.status) && (p.assignee === null || i.assigneeAiAccountId === p.assignee) && (p.olderThanMs === null || p.now.getTime() - i.lastActivityAt.getTime() > p.olderThanMs);
      })
      .sort((a, b) => a.lastActivityAt.getTime() - b.lastActivityAt.getTime() || byId(a, b))
      .slice(p.offset, p.offset + p.limit + 1);
  }

  async countByStatus(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds }): Promise<Record<BacklogStatus | "stale", number>> {
    const out: Record<BacklogStatus | "stale", number> = { untriaged: 0, open: 0, in_progress: 0, resolved: 0, dismissed: 0, stale: 0 };
    for (const i of this.all(p.workspaceId, p.projectId)) {
      out[i.status]++;
      if (isStale(i, p.thresholds, p.now)) out.stale++;
    }
    return out;
  }
}
