import type { CoreDeps } from "../../deps.ts";
import { DomainError, malformed } from "../../errors.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { backlogView, readyBacklog, staleCount } from "../backlog/backlog.ts";
import { checkMarkdown, checkStringList, checkTitle } from "../conventions/fields.ts";
import { EMPTY_CURRENT_STATE, PR_STATES, type BuildSession, type CurrentState, type PullRequest, type SessionClient } from "./build-session.ts";
import type { Project } from "../projects/project.ts";
import { settingMs } from "../projects/projects.ts";
import { compareAndSet } from "../conventions/record-mutation.ts";
import { findInProject, projectArchived, resolveProject } from "../conventions/resolve-project.ts";
import { actorOf, recordChange } from "../conventions/record-history.ts";
import { recordUsage, usageView, type UsageInput } from "../usage/usage.ts";

/** Limits of build sessions (SESSION-STATE §3). */
export const BUILD_SESSION_LIMITS = { goalMax: 2_000, leadLineMax: 300, leadLinesKept: 20, prsMax: 50, listItems: 50, learningsMax: 20 } as const;

/** A session's liveness at `now`: null once ended, silent when the last ping is older than the project's silence setting. */
export function livenessOf(session: BuildSession, project: Pick<Project, "settings">, now: Date): "live" | "silent" | null {
  if (session.state === "ended") return null;
  return now.getTime() - session.lastPingAt.getTime() > settingMs(project, "session_silence_after") ? "silent" : "live";
}

/**
 * The session as the caller may see it, with its project.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function findSession(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<{ session: BuildSession; project: Project }> {
  const { record: session, project } = await findInProject(stores, ctx, id, "Build session", (p) => stores.buildSessions.find(p));
  return { session, project };
}

function ended(id: string): DomainError {
  return new DomainError("SVC_RESOURCE_CONFLICT", "The build session has ended.", { reason: "session_ended", session_id: id });
}

function checkClient(c: { program: string; model: string; host?: string | null } | undefined): SessionClient | null {
  if (c === undefined) return null;
  return { program: checkTitle(c.program, "client.program", 100), model: checkTitle(c.model, "client.model", 100), host: c.host === undefined || c.host === null ? null : checkTitle(c.host, "client.host", 200) };
}

/**
 * A current state as it arrives, checked (lists of up to 50 lines of up to 500 characters, notes up to 16 KB).
 * @throws DomainError SVC_MALFORMED_REQUEST.
 */
export function checkCurrentState(input: Partial<CurrentState>): CurrentState {
  return {
    focus: input.focus === undefined ? "" : input.focus.length > 500 ? (() => { throw malformed("focus must be at most 500 characters.", { field: "focus" }); })() : input.focus,
    next_steps: checkStringList(input.next_steps, "next_steps", BUILD_SESSION_LIMITS.listItems),
    blockers: checkStringList(input.blockers, "blockers", BUILD_SESSION_LIMITS.listItems),
    open_questions: checkStringList(input.open_questions, "open_questions", BUILD_SESSION_LIMITS.listItems),
    files_in_flight: checkStringList(input.files_in_flight, "files_in_flight", BUILD_SESSION_LIMITS.listItems),
    notes_md: checkMarkdown(input.notes_md, "notes_md"),
  };
}

/** A PR as it arrives. */
export interface PullRequestInput {
  url: string;
  repo?: string | null;
  number?: number | null;
  title?: string | null;
  state?: string;
  head_sha?: string | null;
}

function checkPrs(input: PullRequestInput[]): PullRequest[] {
  if (input.length > BUILD_SESSION_LIMITS.prsMax) throw malformed(`prs holds at most ${BUILD_SESSION_LIMITS.prsMax} pull requests.`, { field: "prs" });
  const seen = new Set<string>();
  return input.map((p, i) => {
    let ok = false;
    try {
      ok = ["https:", "http:"].includes(new URL(p.url).protocol);
    } catch {
      ok = false;
    }
    if (!ok || p.url.length > 2048) throw malformed(`prs[${i}].url must be an http(s) URL.`, { field: `prs[${i}].url` });
    if (seen.has(p.url)) throw malformed("prs are keyed by url: a url appears twice.", { field: `prs[${i}].url` });
    seen.add(p.url);
    const state = p.state ?? "open";
    if (!(PR_STATES as readonly string[]).includes(state)) throw malformed(`prs[${i}].state must be one of ${PR_STATES.join(", ")}.`, { field: `prs[${i}].state` });
    return { url: p.url, repo: p.repo ?? null, number: p.number ?? null, title: p.title ?? null, state: state as PullRequest["state"], head_sha: p.head_sha ?? null };
  });
}

function newSession(deps: Pick<CoreDeps, "ids" | "clock">, ctx: OperationContext, p: { project: Project; title: string; goal: string; client: SessionClient | null; previous: BuildSession | null; currentState: CurrentState; prs: PullRequest[] }): BuildSession {
  const now = deps.clock.now();
  const id = deps.ids.next();
  return {
    workspaceId: p.project.workspaceId,
    id,
    projectId: p.project.id,
    title: p.title,
    goal: p.goal,
    client: p.client,
    state: "active",
    endReason: null,
    startedAt: now,
    lastPingAt: now,
    endedAt: null,
    pingCount: 0,
    activeSeconds: 0,
    previousSessionId: p.previous?.id ?? null,
    nextSessionId: null,
    chainRootId: p.previous?.chainRootId ?? id,
    leadLines: [],
    summaryMd: "",
    learnings: [],
    currentState: p.currentState,
    currentStateVersion: 1,
    prs: p.prs,
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: actorOf(ctx),
  };
}

async function sessionChange(deps: CoreDeps, stores: Stores, ctx: OperationContext, s: BuildSession, eventType: string, oldValue: Record<string, unknown> | null, newValue: Record<string, unknown> | null): Promise<void> {
  await recordChange(deps, stores, ctx, { projectId: s.projectId, subjectType: "build_session", subjectId: s.id, eventType, oldValue, newValue, buildSessionId: s.id, at: s.updatedAt });
}

/** What a start takes. */
export interface StartSessionInput {
  project_id?: string;
  title: string;
  goal?: string;
  client?: { program: string; model: string; host?: string | null };
}

/**
 * Starts a build session (`build_session.started`) in the resolved project.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (project archived).
 */
export async function startSession(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: StartSessionInput): Promise<{ session: BuildSession; project: Project }> {
  const project = await resolveProject(stores, ctx, input.project_id, { forWrite: true });
  const goal = input.goal ?? "";
  if (goal.length > BUILD_SESSION_LIMITS.goalMax) throw malformed(`goal must be at most ${BUILD_SESSION_LIMITS.goalMax} characters.`, { field: "goal" });
  const session = newSession(deps, ctx, { project, title: checkTitle(input.title), goal, client: checkClient(input.client), previous: null, currentState: { ...EMPTY_CURRENT_STATE }, prs: [] });
  await stores.buildSessions.insert({ session });
  await sessionChange(deps, stores, ctx, session, "started", null, { title: session.title });
  return { session, project };
}

/** The briefing a session starts with (SESSION-STATE §3). */
export async function briefingFor(deps: CoreDeps, stores: Stores, project: Project, excludeId: string | null) {
  const latest = await stores.buildSessions.latestInProject({ workspaceId: project.workspaceId, projectId: project.id, excludeId });
  const now = deps.clock.now();
  return {
    project: { id: project.id, name: project.name, slug: project.slug },
    previous_session:
      latest === null
        ? null
        : {
            id: latest.id,
            title: latest.title,
            state: latest.state,
            end_reason: latest.endReason,
            ai_account_id: latest.createdBy.aiAccountId,
            started_at: latest.startedAt.toISOString(),
            ended_at: latest.endedAt?.toISOString() ?? null,
            lead_lines: latest.leadLines.map(leadLineView),
            summary_md: latest.summaryMd,
            learnings: latest.learnings,
            current_state: latest.currentState,
            prs: latest.prs,
          },
    ready_backlog: (await readyBacklog(stores, project, 5)).map((i) => backlogView(i, project, now)),
    stale_backlog_count: await staleCount(stores, project, now),
    pending_lesson_candidates: (await stores.candidates.counts({ workspaceId: project.workspaceId, projectId: project.id })).byStatus.pending,
  };
}

async function mutate(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, decide: (s: BuildSession, project: Project) => BuildSession): Promise<{ before: BuildSession; after: BuildSession; project: Project }> {
  let project: Project | null = null;
  const r = await compareAndSet(
    async () => {
      const found = await findSession(stores, ctx, id);
      project = found.project;
      return found.session;
    },
    (s) => decide(s, project as unknown as Project),
    (next, expectedVersion) => stores.buildSessions.replace({ session: next, expectedVersion }),
  );
  return { ...r, project: project as unknown as Project };
}

function activeSecondsAfter(s: BuildSession, project: Project, now: Date): number {
  const gap = Math.max(0, Math.floor((now.getTime() - s.lastPingAt.getTime()) / 1000));
  return s.activeSeconds + Math.min(gap, Math.floor(settingMs(project, "session_silence_after") / 1000));
}

/**
 * A ping: last_ping_at = now, ping_count + 1, active_seconds += min(gap, silence_after);
 * `focus` replaces current_state.focus. Ended: 409 session_ended.
 */
export async function pingSession(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { focus?: string; usage?: UsageInput[] }): Promise<{ session: BuildSession; project: Project }> {
  const now = deps.clock.now();
  const r = await mutate(deps, stores, ctx, id, (s, project) => {
    if (s.state === "ended") throw ended(s.id);
    if (project.state === "archived") throw projectArchived(project.id);
    const focusChanged = input.focus !== undefined && input.focus !== s.currentState.focus;
    if (input.focus !== undefined && input.focus.length > 500) throw malformed("focus must be at most 500 characters.", { field: "focus" });
    return {
      ...s,
      lastPingAt: now,
      pingCount: s.pingCount + 1,
      activeSeconds: activeSecondsAfter(s, project, now),
      currentState: focusChanged ? { ...s.currentState, focus: input.focus ?? "" } : s.currentState,
      currentStateVersion: focusChanged ? s.currentStateVersion + 1 : s.currentStateVersion,
      updatedAt: now,
    };
  });
  await recordUsage(deps, stores, r.after, input.usage, now);
  await sessionChange(deps, stores, ctx, r.after, "pinged", null, { ping_count: r.after.pingCount, active_seconds: r.after.activeSeconds });
  return { session: r.after, project: r.project };
}

/**
 * Replaces the current state whole (current_state_version + 1), guarded by expected_version
 * (the current_state_version read). Ended: 409.
 */
export async function putCurrentState(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: Partial<CurrentState> & { expected_version?: number }): Promise<{ session: BuildSession; project: Project }> {
  const state = checkCurrentState(input);
  const now = deps.clock.now();
  const r = await mutate(deps, stores, ctx, id, (s, project) => {
    if (s.state === "ended") throw ended(s.id);
    if (project.state === "archived") throw projectArchived(project.id);
    if (input.expected_version !== undefined && input.expected_version !== s.currentStateVersion) throw new DomainError("SVC_RESOURCE_CONFLICT", "The current state changed since the version you read.", { reason: "version_conflict", current_version: s.currentStateVersion });
    return { ...s, currentState: state, currentStateVersion: s.currentStateVersion + 1, updatedAt: now };
  });
  await sessionChange(deps, stores, ctx, r.after, "current_state_replaced", null, { current_state_version: r.after.currentStateVersion });
  return { session: r.after, project: r.project };
}

/** Replaces the set of PRs (allowed after the end). */
export async function putPrs(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { prs: PullRequestInput[] }): Promise<{ session: BuildSession; project: Project }> {
  const prs = checkPrs(input.prs);
  const now = deps.clock.now();
  const r = await mutate(deps, stores, ctx, id, (s, project) => {
    if (project.state === "archived") throw projectArchived(project.id);
    return { ...s, prs, updatedAt: now };
  });
  await sessionChange(deps, stores, ctx, r.after, "prs_replaced", { prs: r.before.prs.length }, { prs: prs.length });
  return { session: r.after, project: r.project };
}

/** Pushes a lead line (newest first, 20 kept); the same text as the top line changes nothing. */
export async function prependLead(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { text: string }): Promise<{ session: BuildSession; project: Project }> {
  const text = checkTitle(input.text, "text", BUILD_SESSION_LIMITS.leadLineMax);
  const now = deps.clock.now();
  const r = await mutate(deps, stores, ctx, id, (s, project) => {
    if (s.leadLines[0]?.text === text) return s;
    if (project.state === "archived") throw projectArchived(project.id);
    return { ...s, leadLines: [{ text, addedAt: now, addedBy: actorOf(ctx) }, ...s.leadLines].slice(0, BUILD_SESSION_LIMITS.leadLinesKept), updatedAt: now };
  });
  if (r.after !== r.before) await sessionChange(deps, stores, ctx, r.after, "lead_prepended", null, { text });
  return { session: r.after, project: r.project };
}

/** Ends an active session (completed by default, or abandoned) with a summary and learnings. Ended: 409. */
export async function endSession(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { end_reason?: string; summary_md?: string; learnings?: string[]; usage?: UsageInput[] }): Promise<{ session: BuildSession; project: Project }> {
  const reason = input.end_reason ?? "completed";
  if (reason !== "completed" && reason !== "abandoned") throw malformed("end_reason must be completed or abandoned (a continuation ends a session as continued).", { field: "end_reason" });
  const summary = checkMarkdown(input.summary_md, "summary_md");
  const learnings = checkStringList(input.learnings, "learnings", BUILD_SESSION_LIMITS.learningsMax, 2_000);
  const now = deps.clock.now();
  const r = await mutate(deps, stores, ctx, id, (s, project) => {
    if (s.state === "ended") throw ended(s.id);
    if (project.state === "archived") throw projectArchived(project.id);
    return { ...s, state: "ended", endReason: reason, endedAt: now, activeSeconds: activeSecondsAfter(s, project, now), lastPingAt: now, summaryMd: summary, learnings, updatedAt: now };
  });
  await recordUsage(deps, stores, r.after, input.usage, now);
  await sessionChange(deps, stores, ctx, r.after, "ended", { state: "active" }, { state: "ended", end_reason: reason });
  return { session: r.after, project: r.project };
}

/**
 * Continues a session: the predecessor ends (`continued`; an already ended one keeps its
 * reason), a new active session chained to it carries its current state and its unmerged PRs
 * (draft, open). A second continuation: 409 already_continued.
 */
export async function continueSession(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { title?: string; goal?: string }): Promise<{ session: BuildSession; project: Project }> {
  for (let attempt = 0; attempt < 4; attempt++) {
    const { session: prev, project } = await findSession(stores, ctx, id);
    if (prev.nextSessionId !== null) throw new DomainError("SVC_RESOURCE_CONFLICT", "The build session was already continued.", { reason: "already_continued", next_session_id: prev.nextSessionId });
    if (project.state === "archived") throw projectArchived(project.id);
    const now = deps.clock.now();
    const goal = input.goal ?? prev.goal;
    if (goal.length > BUILD_SESSION_LIMITS.goalMax) throw malformed(`goal must be at most ${BUILD_SESSION_LIMITS.goalMax} characters.`, { field: "goal" });
    const successor = newSession(deps, ctx, { project, title: input.title === undefined ? prev.title : checkTitle(input.title), goal, client: prev.client, previous: prev, currentState: prev.currentState, prs: prev.prs.filter((p) => p.state === "draft" || p.state === "open") });
    const predecessor: BuildSession =
      prev.state === "active"
        ? { ...prev, state: "ended", endReason: "continued", endedAt: now, activeSeconds: activeSecondsAfter(prev, project, now), lastPingAt: now, nextSessionId: successor.id, version: prev.version + 1, updatedAt: now }
        : { ...prev, nextSessionId: successor.id, version: prev.version + 1, updatedAt: now };
    const result = await stores.buildSessions.insertContinuation({ predecessor, expectedVersion: prev.version, successor });
    if (result.kind === "replaced") {
      await sessionChange(deps, stores, ctx, predecessor, "continued", { state: prev.state }, { state: "ended", next_session_id: successor.id });
      await sessionChange(deps, stores, ctx, successor, "started", null, { title: successor.title, previous_session_id: prev.id });
      return { session: successor, project };
    }
  }
  throw new DomainError("SVC_RESOURCE_CONFLICT", "The build session kept changing; read it again.", { reason: "concurrent_write" });
}

/** The wire form of a lead line. */
export function leadLineView(l: BuildSession["leadLines"][number]) {
  return { text: l.text, added_at: l.addedAt.toISOString(), added_by: { ai_account_id: l.addedBy.aiAccountId, friendly_name: l.addedBy.friendlyName } };
}

/** The wire form of a build session at `now`. */
export function sessionView(s: BuildSession, project: Pick<Project, "settings">, now: Date) {
  return {
    id: s.id,
    project_id: s.projectId,
    ai_account_id: s.createdBy.aiAccountId,
    title: s.title,
    goal: s.goal,
    client: s.client,
    state: s.state,
    end_reason: s.endReason,
    liveness: livenessOf(s, project, now),
    started_at: s.startedAt.toISOString(),
    last_ping_at: s.lastPingAt.toISOString(),
    ended_at: s.endedAt?.toISOString() ?? null,
    ping_count: s.pingCount,
    active_seconds: s.activeSeconds,
    previous_session_id: s.previousSessionId,
    next_session_id: s.nextSessionId,
    chain_root_id: s.chainRootId,
    lead_lines: s.leadLines.map(leadLineView),
    summary_md: s.summaryMd,
    learnings: s.learnings,
    current_state: s.currentState,
    current_state_version: s.currentStateVersion,
    prs: s.prs,
    version: s.version,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
    created_by: { ai_account_id: s.createdBy.aiAccountId, friendly_name: s.createdBy.friendlyName },
  };
}

/**
 * GET /build-sessions/{id}/aggregate: figures of the session (or, with `chain`, of its whole
 * chain) from the sessions, the decisions recorded in them and the record events written in them.
 */
export async function aggregateSession(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, chain: boolean) {
  const { session, project } = await findSession(stores, ctx, id);
  const sessions = chain ? await stores.buildSessions.chain({ workspaceId: session.workspaceId, chainRootId: session.chainRootId }) : [session];
  const ids = sessions.map((s) => s.id);
  const now = deps.clock.now();
  const events = await stores.recordEvents.listForSessions({ workspaceId: session.workspaceId, buildSessionIds: ids });
  const backlogEvents = events.filter((e) => e.subjectType === "backlog_item");
  const statusOf = (e: (typeof events)[number]) => (e.newValue as { status?: string } | null)?.status;
  const decisions = await stores.decisions.countForSessions({ workspaceId: session.workspaceId, buildSessionIds: ids });
  const prs: Record<string, number> = { draft: 0, open: 0, merged: 0, closed: 0 };
  for (const s of sessions) for (const p of s.prs) prs[p.state] = (prs[p.state] ?? 0) + 1;
  return {
    session_ids: ids,
    chain,
    wall_seconds: sessions.reduce((n, s) => n + Math.max(0, Math.floor(((s.endedAt ?? now).getTime() - s.startedAt.getTime()) / 1000)), 0),
    active_seconds: sessions.reduce((n, s) => n + s.activeSeconds, 0),
    pings: sessions.reduce((n, s) => n + s.pingCount, 0),
    decisions: { recorded: decisions.decisions, corrected: decisions.corrections },
    backlog: {
      created: backlogEvents.filter((e) => e.eventType === "created").length,
      triaged: backlogEvents.filter((e) => e.eventType === "triaged").length,
      resolved: backlogEvents.filter((e) => statusOf(e) === "resolved" && e.eventType !== "note_added").length,
      dismissed: backlogEvents.filter((e) => statusOf(e) === "dismissed" && e.eventType !== "note_added").length,
      touched: new Set(backlogEvents.map((e) => e.subjectId)).size,
    },
    lessons: { created: events.filter((e) => e.subjectType === "lesson" && e.eventType === "created").length, observed: events.filter((e) => e.subjectType === "lesson" && e.eventType === "observed").length },
    candidates: { detected: events.filter((e) => e.subjectType === "lesson_candidate" && e.eventType === "detected").length, promoted: events.filter((e) => e.subjectType === "lesson_candidate" && e.eventType === "promoted").length },
    prs_by_state: prs,
    usage: usageView(await stores.usage.totalsForSessions({ workspaceId: session.workspaceId, buildSessionIds: ids })),
    liveness: livenessOf(session, project, now),
  };
}
