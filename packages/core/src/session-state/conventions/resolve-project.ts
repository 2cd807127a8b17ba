import { DomainError, malformed, notFound } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { SLUG_PATTERN } from "./fields.ts";
import type { Project } from "../projects/project.ts";

/** The refusal of a write to an archived project: 409 with details.reason `project_archived`. */
export function projectArchived(projectId: string): DomainError {
  return new DomainError("SVC_RESOURCE_CONFLICT", "The project is archived (read-only); unarchive it first.", { reason: "project_archived", project_id: projectId });
}

/** The project a project-restricted credential is limited to, or null. */
export function restrictedProjectId(ctx: Pick<OperationContext, "principal">): string | null {
  return ctx.principal.kind === "person" ? null : ctx.principal.credential.projectId;
}

/**
 * Whether the caller may see a record of `projectId`: always, unless its credential is
 * restricted to another project.
 */
export function visibleTo(ctx: Pick<OperationContext, "principal">, projectId: string): boolean {
  const only = restrictedProjectId(ctx);
  return only === null || only === projectId;
}

/**
 * The record `find` reads by `id` in the caller's workspace, with its project: the one way a
 * session-state record is opened by id (reads and writes).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (as `resource`) when `id` is no ULID, no record has
 *   it, the caller's credential is restricted to another project, or its project is gone.
 */
export async function findInProject<T extends { workspaceId: string; projectId: string }>(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string, resource: string, find: (p: { workspaceId: string; id: string }) => Promise<T | null>): Promise<{ record: T; project: Project }> {
  const record = isUlid(id) ? await find({ workspaceId: ctx.principal.workspace.id, id }) : null;
  if (record === null || !visibleTo(ctx, record.projectId)) throw notFound(resource);
  const project = await stores.projects.find({ workspaceId: record.workspaceId, projectId: record.projectId });
  if (project === null) throw notFound(resource);
  return { record, project };
}

/**
 * The record of `{project_id?, slug}` that `find` reads in the resolved project (reads).
 * @throws DomainError SVC_MALFORMED_REQUEST (slug), SVC_RESOURCE_NOT_FOUND (project, record).
 */
export async function findBySlug<T>(stores: Stores, ctx: Pick<OperationContext, "principal">, input: { project_id?: string; slug: string }, resource: string, find: (p: { workspaceId: string; projectId: string; slug: string }) => Promise<T | null>): Promise<T> {
  const project = await resolveProject(stores, ctx, input.project_id, { forWrite: false });
  if (!SLUG_PATTERN.test(input.slug)) throw malformed(`slug must match ${SLUG_PATTERN.source}.`, { field: "slug" });
  const found = await find({ workspaceId: project.workspaceId, projectId: project.id, slug: input.slug });
  if (found === null) throw notFound(resource);
  return found;
}

/**
 * Which project a request is about (SESSION-STATE §1): `project_id` when given, else the
 * credential's project, else the workspace's default project. A project-restricted credential
 * naming another project gets 404 like a missing one. With `forWrite`, an archived project is
 * refused.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_MALFORMED_REQUEST (details.reason `no_project`),
 *   SVC_RESOURCE_CONFLICT (details.reason `project_archived`, writes).
 */
export async function resolveProject(stores: Stores, ctx: Pick<OperationContext, "principal">, projectId: string | undefined | null, opts: { forWrite: boolean }): Promise<Project> {
  const workspaceId = ctx.principal.workspace.id;
  const only = restrictedProjectId(ctx);
  let project: Project | null;
  if (projectId !== undefined && projectId !== null && projectId !== "") {
    if (only !== null && projectId !== only) throw notFound("Project");
    project = isUlid(projectId) ? await stores.projects.find({ workspaceId, projectId }) : null;
    if (project === null) throw notFound("Project");
  } else if (only !== null) {
    project = isUlid(only) ? await stores.projects.find({ workspaceId, projectId: only }) : null;
    if (project === null) throw notFound("Project");
  } else {
    project = await stores.projects.findDefault({ workspaceId });
    if (project === null) throw malformed("Name a project_id: the workspace has no default project.", { field: "project_id", reason: "no_project" });
  }
  if (opts.forWrite && project.state === "archived") throw projectArchived(project.id);
  return project;
}
