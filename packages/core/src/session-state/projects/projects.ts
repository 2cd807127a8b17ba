import type { CoreDeps } from "../../deps.ts";
import { DomainError, malformed, notFound } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import type { OperationContext } from "../../operation.ts";
import { checkPlanCap } from "../../plans/plan-caps.ts";
import { workspaceLimits } from "../../plans/workspace-limits.ts";
import type { Stores } from "../../ports.ts";
import { DAY_MS, SECOND_MS, parseDurationMs } from "../../time/duration.ts";
import { ATTRIBUTE_KEY_PATTERN, SESSION_STATE_LIMITS, SLUG_PATTERN, checkTitle } from "../conventions/fields.ts";
import { DEFAULT_PROJECT_SETTINGS, type Project, type ProjectChanges, type ProjectSettings, type ProjectState } from "./project.ts";
import { projectArchived, restrictedProjectId, visibleTo } from "../conventions/resolve-project.ts";
import { actorOf, recordChange } from "../conventions/record-history.ts";
import { slugify } from "../text/slug.ts";

/** Bounds of the duration settings of a project. */
const SETTING_BOUNDS = {
  backlog_stale_after: { minMs: DAY_MS, maxMs: 365 * DAY_MS },
  backlog_in_progress_stale_after: { minMs: DAY_MS, maxMs: 365 * DAY_MS },
  session_silence_after: { minMs: 60 * SECOND_MS, maxMs: DAY_MS },
} as const;

/** Settings as they arrive (each optional). */
export type ProjectSettingsInput = Partial<ProjectSettings>;

/** A duration setting of a project in milliseconds. */
export function settingMs(project: Pick<Project, "settings">, key: keyof typeof SETTING_BOUNDS): number {
  return parseDurationMs(project.settings[key], `settings.${key}`, SETTING_BOUNDS[key]);
}

/**
 * Settings merged over `base`, each checked (durations within their bounds, candidate_min_sessions 1..20).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field settings.<name>).
 */
export function checkSettings(input: ProjectSettingsInput | undefined, base: ProjectSettings = DEFAULT_PROJECT_SETTINGS): ProjectSettings {
  const merged: ProjectSettings = { ...base, ...(input ?? {}) };
  for (const key of Object.keys(SETTING_BOUNDS) as (keyof typeof SETTING_BOUNDS)[]) parseDurationMs(merged[key], `settings.${key}`, SETTING_BOUNDS[key]);
  const n = merged.candidate_min_sessions;
  if (!Number.isInteger(n) || n < 1 || n > 20) throw malformed("settings.candidate_min_sessions must be an integer from 1 to 20.", { field: "settings.candidate_min_sessions" });
  return merged;
}

/**
 * Project attributes: at most 50 keys matching `^[a-z][a-z0-9_.-]{0,63}$`, string values up to 200 characters.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field attributes).
 */
export function checkAttributes(input: Record<string, string> | undefined): Record<string, string> {
  const attrs = input ?? {};
  const keys = Object.keys(attrs);
  if (keys.length > SESSION_STATE_LIMITS.attributesMax) throw malformed(`attributes holds at most ${SESSION_STATE_LIMITS.attributesMax} keys.`, { field: "attributes" });
  for (const k of keys) {
    if (!ATTRIBUTE_KEY_PATTERN.test(k)) throw malformed(`attributes keys must match ${ATTRIBUTE_KEY_PATTERN.source}.`, { field: "attributes", key: k });
    const v = attrs[k];
    if (typeof v !== "string" || v.length > SESSION_STATE_LIMITS.attributeValueMax) throw malformed(`attributes values must be strings of up to ${SESSION_STATE_LIMITS.attributeValueMax} characters.`, { field: "attributes", key: k });
  }
  return Object.fromEntries(keys.sort().map((k) => [k, attrs[k] as string]));
}

function checkDescription(value: string | undefined): string {
  const d = value ?? "";
  if (d.length > SESSION_STATE_LIMITS.projectDescriptionMax) throw malformed(`description must be at most ${SESSION_STATE_LIMITS.projectDescriptionMax} characters.`, { field: "description" });
  return d;
}

function checkRepositoryUrl(value: string | undefined | null): string | null {
  if (value === undefined || value === null || value === "") return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw malformed("repository_url must be an absolute URL.", { field: "repository_url" });
  }
  if (!["https:", "http:", "ssh:", "git:"].includes(url.protocol) || value.length > 2048) throw malformed("repository_url must be an https, http, ssh or git URL of up to 2048 characters.", { field: "repository_url" });
  return value;
}

/** What POST /projects takes (already shape-checked). */
export interface CreateProjectInput {
  name: string;
  slug?: string;
  description?: string;
  repository_url?: string | null;
  attributes?: Record<string, string>;
  settings?: ProjectSettingsInput;
  make_default?: boolean;
}

/**
 * Creates a project (`project.created`): the first of the workspace becomes its default, as does
 * one created with make_default (the old default cleared in the same transaction). The plan cap
 * counts active projects, inside the creating transaction (two concurrent creations at the cap
 * can both pass, as with AI accounts). A derived slug takes a numeric suffix when taken; an
 * explicit one that is taken gets 409.
 * @throws DomainError SVC_SCOPE_INSUFFICIENT (project-restricted credential), SVC_MALFORMED_REQUEST,
 *   SVC_PLAN_LIMIT_EXCEEDED, SVC_RESOURCE_CONFLICT (details.reason `slug_taken`, details.existing_id).
 */
export async function createProject(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: CreateProjectInput): Promise<Project> {
  if (restrictedProjectId(ctx) !== null) throw new DomainError("SVC_SCOPE_INSUFFICIENT", "A project-restricted credential cannot create projects.", { reason: "project_restricted" });
  const workspaceId = ctx.principal.workspace.id;
  const name = checkTitle(input.name, "name", SESSION_STATE_LIMITS.projectNameMax);
  if (input.slug !== undefined && !SLUG_PATTERN.test(input.slug)) throw malformed(`slug must match ${SLUG_PATTERN.source}.`, { field: "slug" });
  const base: Omit<Project, "id" | "slug" | "isDefault"> = {
    workspaceId,
    name,
    description: checkDescription(input.description),
    repositoryUrl: checkRepositoryUrl(input.repository_url),
    attributes: checkAttributes(input.attributes),
    settings: checkSettings(input.settings),
    state: "active",
    archivedAt: null,
    version: 1,
    createdAt: deps.clock.now(),
    updatedAt: deps.clock.now(),
    createdBy: actorOf(ctx),
  };
  const limits = await workspaceLimits(deps, workspaceId);
  checkPlanCap("projects", limits.projects, await stores.projects.countActive({ workspaceId }));
  const previousDefault = await stores.projects.findDefault({ workspaceId });
  const id = deps.ids.next();
  const derived = slugify(name);
  let project: Project | null = null;
  for (let attempt = 1; project === null; attempt++) {
    const slug = input.slug ?? (attempt === 1 ? derived : `${derived.slice(0, 60)}-${attempt}`);
    const candidate: Project = { ...base, id, slug, isDefault: previousDefault === null };
    // The store decides the default under its lock (a concurrent first creation may have won).
    const result = await stores.projects.insert({ project: candidate });
    if (result.kind === "created") project = result.project;
    else if (input.slug !== undefined || attempt >= 100) throw new DomainError("SVC_RESOURCE_CONFLICT", "The workspace already has a project with this slug (archived ones included).", { reason: "slug_taken", existing_id: result.existingId });
  }
  await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "project", subjectId: project.id, eventType: "created", oldValue: null, newValue: { name: project.name, slug: project.slug, is_default: project.isDefault }, at: project.createdAt });
  if (input.make_default === true && !project.isDefault) project = await setDefaultProject(deps, stores, ctx, project.id);
  return project;
}

/**
 * The project with that id as the caller may see it.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (missing, other workspace, or outside a restricted credential's project).
 */
export async function findProject(stores: Stores, ctx: Pick<OperationContext, "principal">, projectId: string): Promise<Project> {
  const project = isUlid(projectId) && visibleTo(ctx, projectId) ? await stores.projects.find({ workspaceId: ctx.principal.workspace.id, projectId }) : null;
  if (project === null) throw notFound("Project");
  return project;
}

/** The wire form of GET /projects/{id}'s counts. */
export interface ProjectCounts {
  untriaged: number;
  open: number;
  in_progress: number;
  stale: number;
  active_sessions: number;
  decisions: number;
  lessons: number;
  active_rules: number;
  pending_candidates: number;
}

/** A project's counts at the core clock's now (lessons: active ones). */
export async function projectCounts(deps: Pick<CoreDeps, "clock">, stores: Stores, project: Project): Promise<ProjectCounts> {
  const at = { workspaceId: project.workspaceId, projectId: project.id };
  const decisions = await stores.decisions.count(at);
  const backlog = await stores.backlog.countByStatus({ ...at, now: deps.clock.now(), thresholds: { openMs: settingMs(project, "backlog_stale_after"), inProgressMs: settingMs(project, "backlog_in_progress_stale_after") } });
  const activeSessions = await stores.buildSessions.countActive(at);
  const lessons = await stores.lessons.countByStatus(at);
  const rules = await stores.rules.active(at);
  const candidates = await stores.candidates.counts(at);
  return { untriaged: backlog.untriaged, open: backlog.open, in_progress: backlog.in_progress, stale: backlog.stale, active_sessions: activeSessions, decisions, lessons: lessons.active, active_rules: rules.length, pending_candidates: candidates.byStatus.pending };
}

/**
 * Changes a project's name, description, attributes or settings (`project.updated`), guarded by
 * `expected_version` when sent.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_MALFORMED_REQUEST, SVC_RESOURCE_CONFLICT
 *   (details.current_version; details.reason project_archived).
 */
export async function updateProject(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: { projectId: string; expectedVersion?: number; name?: string; description?: string; attributes?: Record<string, string>; settings?: ProjectSettingsInput }): Promise<Project> {
  const before = await findProject(stores, ctx, input.projectId);
  const changes: ProjectChanges = {};
  if (input.name !== undefined) changes.name = checkTitle(input.name, "name", SESSION_STATE_LIMITS.projectNameMax);
  if (input.description !== undefined) changes.description = checkDescription(input.description);
  if (input.attributes !== undefined) changes.attributes = checkAttributes(input.attributes);
  if (input.settings !== undefined) changes.settings = checkSettings(input.settings, before.settings);
  const result = await stores.projects.update({ workspaceId: before.workspaceId, projectId: before.id, expectedVersion: input.expectedVersion ?? null, changes, now: deps.clock.now() });
  if (result.kind === "not_found") throw notFound("Project");
  if (result.kind === "archived") throw projectArchived(before.id);
  if (result.kind === "version_conflict") throw new DomainError("SVC_RESOURCE_CONFLICT", "The project changed since the version you read.", { reason: "version_conflict", current_version: result.current.version });
  const p = result.project;
  const old = Object.fromEntries(Object.keys(changes).map((k) => [k, before[k as keyof ProjectChanges]]));
  await recordChange(deps, stores, ctx, { projectId: p.id, subjectType: "project", subjectId: p.id, eventType: "updated", oldValue: old, newValue: { ...changes }, at: p.updatedAt });
  return p;
}

/**
 * Archives (to `archived`) or unarchives (to `active`, the plan cap checked again) a project.
 * Archiving the default or an archived project, or unarchiving an active one: 409.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (details.reason
 *   `is_default` | `already_archived` | `not_archived`), SVC_PLAN_LIMIT_EXCEEDED.
 */
export async function setProjectState(deps: CoreDeps, stores: Stores, ctx: OperationContext, projectId: string, to: ProjectState): Promise<Project> {
  const project = await findProject(stores, ctx, projectId);
  if (to === "active" && project.state === "archived") {
    const limits = await workspaceLimits(deps, project.workspaceId);
    checkPlanCap("projects", limits.projects, await stores.projects.countActive({ workspaceId: project.workspaceId }));
  }
  const result = await stores.projects.setState({ workspaceId: project.workspaceId, projectId: project.id, to, now: deps.clock.now() });
  if (result.kind === "not_found") throw notFound("Project");
  if (result.kind === "is_default") throw new DomainError("SVC_RESOURCE_CONFLICT", "The default project cannot be archived; make another project the default first.", { reason: "is_default" });
  if (result.kind === "wrong_state") throw new DomainError("SVC_RESOURCE_CONFLICT", to === "archived" ? "The project is already archived." : "The project is not archived.", { reason: to === "archived" ? "already_archived" : "not_archived", state: result.current.state });
  const eventType = to === "archived" ? "archived" : "unarchived";
  await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "project", subjectId: project.id, eventType, oldValue: { state: project.state }, newValue: { state: to }, at: result.project.updatedAt });
  return result.project;
}

/**
 * Makes a project the workspace's default (`project.set_default`), clearing the old default in
 * the same transaction; repeating it is a 200 that changes nothing.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (archived).
 */
export async function setDefaultProject(deps: CoreDeps, stores: Stores, ctx: OperationContext, projectId: string): Promise<Project> {
  const project = await findProject(stores, ctx, projectId);
  const result = await stores.projects.makeDefault({ workspaceId: project.workspaceId, projectId: project.id, now: deps.clock.now() });
  if (result.kind === "not_found") throw notFound("Project");
  if (result.kind === "archived") throw projectArchived(project.id);
  if (result.changed) await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "project", subjectId: project.id, eventType: "set_default", oldValue: { default_project_id: result.previousId }, newValue: { default_project_id: project.id }, at: result.project.updatedAt });
  return result.project;
}

/** The wire form of a project. */
export interface ProjectView {
  id: string;
  project_id: string;
  name: string;
  slug: string;
  description: string;
  repository_url: string | null;
  attributes: Record<string, string>;
  settings: ProjectSettings;
  state: ProjectState;
  is_default: boolean;
  archived_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  created_by: { ai_account_id: string; friendly_name: string };
}

/** The wire form of a project (`project_id` repeats `id`, like every session-state record). */
export function projectView(p: Project): ProjectView {
  return {
    id: p.id,
    project_id: p.id,
    name: p.name,
    slug: p.slug,
    description: p.description,
    repository_url: p.repositoryUrl,
    attributes: p.attributes,
    settings: p.settings,
    state: p.state,
    is_default: p.isDefault,
    archived_at: p.archivedAt?.toISOString() ?? null,
    version: p.version,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
    created_by: { ai_account_id: p.createdBy.aiAccountId, friendly_name: p.createdBy.friendlyName },
  };
}
