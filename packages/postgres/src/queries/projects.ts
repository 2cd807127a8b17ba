import type { Project, ProjectChanges, ProjectSettings, ProjectState } from "@agentq/core";
import type postgres from "postgres";
import type { SqlClient } from "../sql-client.ts";
import { json } from "./json.ts";

interface ProjectRow {
  workspace_id: string;
  id: string;
  name: string;
  slug: string;
  description: string;
  repository_url: string | null;
  attributes: Record<string, string>;
  settings: ProjectSettings;
  state: ProjectState;
  is_default: boolean;
  archived_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  created_by_account_id: string;
  created_by_name: string;
}

const COLUMNS = ["workspace_id", "id", "name", "slug", "description", "repository_url", "attributes", "settings", "state", "is_default", "archived_at", "version", "created_at", "updated_at", "created_by_account_id", "created_by_name"];

function toProject(r: ProjectRow): Project {
  return {
    workspaceId: r.workspace_id,
    id: r.id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    repositoryUrl: r.repository_url,
    attributes: r.attributes,
    settings: r.settings,
    state: r.state,
    isDefault: r.is_default,
    archivedAt: r.archived_at,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    createdBy: { aiAccountId: r.created_by_account_id, friendlyName: r.created_by_name },
  };
}


/**
 * Serializes changes of a workspace's default project (first creation, set-default): a
 * transaction-scoped advisory lock keyed by the workspace, so concurrent callers cannot both
 * make a default (the partial unique index would refuse the second).
 */
async function lockDefault(sql: SqlClient, workspaceId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`agentq.projects.default:${workspaceId}`}, 0))`;
}

/** Runs `fn` in the caller's transaction, or in a new one when `sql` is the pool. */
async function inTransaction<T>(sql: SqlClient, fn: (tx: SqlClient) => Promise<T>): Promise<T> {
  if ("savepoint" in sql) return fn(sql);
  return (await (sql as postgres.Sql).begin((tx) => fn(tx))) as T;
}

/**
 * Inserts a project unless its slug is taken in the workspace (returns the slug holder's id). A
 * project inserted as the default becomes one only when the workspace still has none once the
 * default lock is held (else it is inserted as not the default).
 */
export async function projectsInsert(sql: SqlClient, p: { project: Project }): Promise<{ kind: "created"; project: Project } | { kind: "slug_taken"; existingId: string }> {
  return inTransaction(sql, async (tx) => {
    let x = p.project;
    if (x.isDefault) {
      await lockDefault(tx, x.workspaceId);
      if ((await projectsFindDefault(tx, { workspaceId: x.workspaceId })) !== null) x = { ...x, isDefault: false };
    }
    const rows = await tx<{ id: string }[]>`
      insert into projects (workspace_id, id, name, slug, description, repository_url, attributes, settings, state, is_default, archived_at, version, created_at, updated_at, created_by_account_id, created_by_name)
      values (${x.workspaceId}, ${x.id}, ${x.name}, ${x.slug}, ${x.description}, ${x.repositoryUrl}, ${json(tx, x.attributes)}::jsonb, ${json(tx, x.settings)}::jsonb, ${x.state}, ${x.isDefault}, ${x.archivedAt}, ${x.version}, ${x.createdAt}, ${x.updatedAt}, ${x.createdBy.aiAccountId}, ${x.createdBy.friendlyName})
      on conflict (workspace_id, slug) do nothing
      returning id`;
    if (rows.length > 0) return { kind: "created" as const, project: x };
    const [holder] = await tx<{ id: string }[]>`select id from projects where workspace_id = ${x.workspaceId} and slug = ${x.slug}`;
    return { kind: "slug_taken" as const, existingId: holder?.id ?? "" };
  });
}

/** The project, or null. */
export async function projectsFind(sql: SqlClient, p: { workspaceId: string; projectId: string }): Promise<Project | null> {
  const [row] = await sql<ProjectRow[]>`select ${sql(COLUMNS)} from projects where workspace_id = ${p.workspaceId} and id = ${p.projectId}`;
  return row ? toProject(row) : null;
}

/** The workspace's default project, or null (`projects_default_key`). */
export async function projectsFindDefault(sql: SqlClient, p: { workspaceId: string }): Promise<Project | null> {
  const [row] = await sql<ProjectRow[]>`select ${sql(COLUMNS)} from projects where workspace_id = ${p.workspaceId} and is_default`;
  return row ? toProject(row) : null;
}

/** A page of projects by id; at most `limit + 1`. */
export async function projectsList(sql: SqlClient, p: { workspaceId: string; state: ProjectState | null; onlyId: string | null; after: string | null; limit: number }): Promise<Project[]> {
  const rows = await sql<ProjectRow[]>`
    select ${sql(COLUMNS)} from projects
    where workspace_id = ${p.workspaceId}
      and (${p.state}::text is null or state = ${p.state})
      and (${p.onlyId}::text is null or id = ${p.onlyId})
      and (${p.after}::text is null or id > ${p.after})
    order by id
    limit ${p.limit + 1}`;
  return rows.map(toProject);
}

/** Active projects of the workspace. */
export async function projectsCountActive(sql: SqlClient, p: { workspaceId: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from projects where workspace_id = ${p.workspaceId} and state = 'active'`;
  return row?.n ?? 0;
}

/**
 * Applies changes to an active project in one guarded UPDATE (state active, and the version when
 * given); on no row, reads the project to tell why.
 */
export async function projectsUpdate(sql: SqlClient, p: { workspaceId: string; projectId: string; expectedVersion: number | null; changes: ProjectChanges; now: Date }): Promise<{ kind: "updated"; project: Project } | { kind: "version_conflict"; current: Project } | { kind: "archived" } | { kind: "not_found" }> {
  const c = p.changes;
  const [row] = await sql<ProjectRow[]>`
    update projects set
      name = coalesce(${c.name ?? null}::text, name),
      description = coalesce(${c.description ?? null}::text, description),
      attributes = coalesce(${c.attributes === undefined ? null : json(sql, c.attributes)}::jsonb, attributes),
      settings = coalesce(${c.settings === undefined ? null : json(sql, c.settings)}::jsonb, settings),
      version = version + 1, updated_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.projectId} and state = 'active'
      and (${p.expectedVersion}::int is null or version = ${p.expectedVersion})
    returning ${sql(COLUMNS)}`;
  if (row) return { kind: "updated", project: toProject(row) };
  const current = await projectsFind(sql, p);
  if (current === null) return { kind: "not_found" };
  if (current.state === "archived") return { kind: "archived" };
  return { kind: "version_conflict", current };
}

/** Moves a project to `to` in one guarded UPDATE (from the other state; archive never the default). */
export async function projectsSetState(sql: SqlClient, p: { workspaceId: string; projectId: string; to: ProjectState; now: Date }): Promise<{ kind: "changed"; project: Project } | { kind: "wrong_state"; current: Project } | { kind: "is_default" } | { kind: "not_found" }> {
  const [row] = await sql<ProjectRow[]>`
    update projects set state = ${p.to}, archived_at = case when ${p.to} = 'archived' then ${p.now}::timestamptz end, version = version + 1, updated_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.projectId} and state <> ${p.to} and (${p.to} <> 'archived' or not is_default)
    returning ${sql(COLUMNS)}`;
  if (row) return { kind: "changed", project: toProject(row) };
  const current = await projectsFind(sql, p);
  if (current === null) return { kind: "not_found" };
  if (current.state === p.to) return { kind: "wrong_state", current };
  return { kind: "is_default" };
}

/**
 * Makes an active project the default under the workspace's default lock: the old default is
 * cleared, then the target set (two statements in one transaction: a unique index is checked
 * row by row, so one statement swapping both rows could see two defaults).
 */
export async function projectsMakeDefault(sql: SqlClient, p: { workspaceId: string; projectId: string; now: Date }): Promise<{ kind: "default"; project: Project; previousId: string | null; changed: boolean } | { kind: "archived" } | { kind: "not_found" }> {
  return inTransaction(sql, async (tx) => {
    await lockDefault(tx, p.workspaceId);
    const target = await projectsFind(tx, p);
    if (target === null) return { kind: "not_found" as const };
    if (target.state === "archived") return { kind: "archived" as const };
    if (target.isDefault) return { kind: "default" as const, project: target, previousId: target.id, changed: false };
    const cleared = await tx<{ id: string }[]>`
      update projects set is_default = false, version = version + 1, updated_at = ${p.now}
      where workspace_id = ${p.workspaceId} and is_default returning id`;
    const [row] = await tx<ProjectRow[]>`
      update projects set is_default = true, version = version + 1, updated_at = ${p.now}
      where workspace_id = ${p.workspaceId} and id = ${p.projectId} and state = 'active'
      returning ${tx(COLUMNS)}`;
    if (!row) throw new Error("projectsMakeDefault: the project changed under the default lock");
    return { kind: "default" as const, project: toProject(row), previousId: cleared[0]?.id ?? null, changed: true };
  });
}

/** The next number of a per-project sequence: one UPDATE of the project row (its row lock serializes numbering per project). */
export async function projectsNextNumber(sql: SqlClient, p: { workspaceId: string; projectId: string; sequence: "decision" | "backlog" }): Promise<number> {
  const column = sql(p.sequence === "decision" ? "decision_seq" : "backlog_seq");
  const [row] = await sql<{ n: number }[]>`
    update projects set ${column} = ${column} + 1 where workspace_id = ${p.workspaceId} and id = ${p.projectId} returning ${column} as n`;
  if (!row) throw new Error("projectsNextNumber: no such project");
  return row.n;
}
