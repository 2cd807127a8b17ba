import { Type } from "@sinclair/typebox";
import { decodeCursor } from "../../cursors/cursor.ts";
import { pageOf } from "../../cursors/page.ts";
import { parsePageLimit } from "../../cursors/page-limit.ts";
import { parseEnum } from "../conventions/fields.ts";
import { PROJECT_STATES } from "./project.ts";
import { createProject, findProject, projectCounts, projectView, setDefaultProject, setProjectState, updateProject } from "./projects.ts";
import { restrictedProjectId } from "../conventions/resolve-project.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { CreatedBySchema, CursorField, ExpectedVersionField, IdField, LimitField, Nullable, PROJECT_WRITE, PageOf, Timestamp } from "../conventions/operation-fields.ts";

const SettingsInput = Type.Object(
  {
    backlog_stale_after: Type.Optional(Type.String({ description: "ISO 8601 duration (P1D..P365D), default P30D: an untriaged or open backlog item inactive this long is stale." })),
    backlog_in_progress_stale_after: Type.Optional(Type.String({ description: "ISO 8601 duration (P1D..P365D), default P7D: the same for in_progress items." })),
    session_silence_after: Type.Optional(Type.String({ description: "ISO 8601 duration (PT1M..P1D), default PT30M: a build session without a ping this long is silent." })),
    candidate_min_sessions: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: "Distinct sessions a lesson candidate needs to be ready, default 2." })),
  },
  { additionalProperties: false, description: "Settings; absent ones keep their value (defaults on create)." },
);
const Attributes = Type.Record(Type.String(), Type.String({ maxLength: 200 }), { description: "Up to 50 attributes {key: value}, keys ^[a-z][a-z0-9_.-]{0,63}$ (the project-attribute dimension of rules)." });

const ProjectSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the project." }),
    project_id: Type.String({ description: "The same as id." }),
    name: Type.String(),
    slug: Type.String({ description: "Unique in the workspace, archived projects included." }),
    description: Type.String(),
    repository_url: Nullable(Type.String()),
    attributes: Type.Record(Type.String(), Type.String()),
    settings: Type.Object({ backlog_stale_after: Type.String(), backlog_in_progress_stale_after: Type.String(), session_silence_after: Type.String(), candidate_min_sessions: Type.Integer() }),
    state: Type.Union([Type.Literal("active"), Type.Literal("archived")], { description: "active, or archived (read-only)." }),
    is_default: Type.Boolean({ description: "The workspace's default project (at most one)." }),
    archived_at: Nullable(Timestamp()),
    version: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    created_by: CreatedBySchema,
  },
  { description: "A project." },
);
const CountsSchema = Type.Object(
  {
    untriaged: Type.Integer(),
    open: Type.Integer(),
    in_progress: Type.Integer(),
    stale: Type.Integer(),
    active_sessions: Type.Integer(),
    decisions: Type.Integer(),
    lessons: Type.Integer(),
    active_rules: Type.Integer(),
    pending_candidates: Type.Integer(),
  },
  { description: "Counts of the project's records." },
);
const ProjectPath = { project_id: IdField("ULID of the project.") };

const createProjectOp = defineSessionStateWrite({
  name: "create_project",
  summary: "Create a project (the first one becomes the workspace's default); the plan caps active projects.",
  http: { method: "POST", path: "/v1/projects" },
  auth: PROJECT_WRITE,
  input: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 100, description: "1-100 characters." }),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "^[a-z0-9][a-z0-9-]{0,63}$, unique in the workspace; derived from the name when absent (a numeric suffix when taken)." })),
    description: Type.Optional(Type.String({ maxLength: 2_000 })),
    repository_url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    attributes: Type.Optional(Attributes),
    settings: Type.Optional(SettingsInput),
    make_default: Type.Optional(Type.Boolean({ description: "Make it the default project (the old default is cleared)." })),
  }),
  output: ProjectSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: projectView(await createProject(deps, stores, ctx, input)) }),
});

const listProjectsOp = defineSessionStateRead({
  name: "list_projects",
  summary: "List the workspace's projects (oldest first), optionally by state; a project-restricted credential sees only its project.",
  http: { path: "/v1/projects", query: ["state", "limit", "cursor"] },
  input: Type.Object({ state: Type.Optional(Type.String({ description: "active or archived." })), limit: LimitField, cursor: CursorField }),
  output: PageOf(ProjectSchema, "A page of projects."),
  async handler(deps, ctx, input) {
    const limit = parsePageLimit(input.limit);
    const state = parseEnum(input.state, PROJECT_STATES, "state");
    const onlyId = restrictedProjectId(ctx);
    const filters = { state, only: onlyId };
    const after = decodeCursor(deps, { resource: "projects", workspaceId: ctx.principal.workspace.id, filters }, input.cursor);
    const rows = await deps.stores.projects.list({ workspaceId: ctx.principal.workspace.id, state, onlyId, after, limit });
    const page = rows.slice(0, limit);
    return { body: pageOf(deps, ctx, "projects", filters, rows.length > limit ? (page[page.length - 1]?.id ?? null) : null, page.map(projectView)) };
  },
});

const getProjectOp = defineSessionStateRead({
  name: "get_project",
  summary: "Read a project with counts of its records (backlog by status, stale items, active sessions, decisions, lessons, rules, pending candidates).",
  http: { path: "/v1/projects/{project_id}" },
  input: Type.Object(ProjectPath),
  output: Type.Object({ ...ProjectSchema.properties, counts: CountsSchema }, { description: "A project with its counts." }),
  async handler(deps, ctx, input) {
    const project = await findProject(deps.stores, ctx, input.project_id);
    return { body: { ...projectView(project), counts: await projectCounts(deps, deps.stores, project) } };
  },
});

const updateProjectOp = defineSessionStateWrite({
  name: "update_project",
  summary: "Change a project's name, description, attributes or settings (an archived project is read-only).",
  http: { method: "PATCH", path: "/v1/projects/{project_id}" },
  auth: PROJECT_WRITE,
  input: Type.Object({
    ...ProjectPath,
    expected_version: ExpectedVersionField,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    description: Type.Optional(Type.String({ maxLength: 2_000 })),
    attributes: Type.Optional(Attributes),
    settings: Type.Optional(SettingsInput),
  }),
  output: ProjectSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const { project_id, expected_version, ...changes } = input;
    return { body: projectView(await updateProject(deps, stores, ctx, { projectId: project_id, ...(expected_version === undefined ? {} : { expectedVersion: expected_version }), ...changes })) };
  },
});

const archiveProjectOp = defineSessionStateWrite({
  name: "archive_project",
  summary: "Archive a project (read-only from then on); the default project cannot be archived, an archived one not again (409).",
  http: { method: "POST", path: "/v1/projects/{project_id}/archive" },
  auth: PROJECT_WRITE,
  input: Type.Object(ProjectPath),
  output: ProjectSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: projectView(await setProjectState(deps, stores, ctx, input.project_id, "archived")) }),
});

const unarchiveProjectOp = defineSessionStateWrite({
  name: "unarchive_project",
  summary: "Make an archived project active again (the plan cap on active projects is checked again).",
  http: { method: "POST", path: "/v1/projects/{project_id}/unarchive" },
  auth: PROJECT_WRITE,
  input: Type.Object(ProjectPath),
  output: ProjectSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: projectView(await setProjectState(deps, stores, ctx, input.project_id, "active")) }),
});

const setDefaultProjectOp = defineSessionStateWrite({
  name: "set_default_project",
  summary: "Make an active project the workspace's default (the old default is cleared in the same transaction; repeating it is a 200).",
  http: { method: "POST", path: "/v1/projects/{project_id}/set-default" },
  auth: PROJECT_WRITE,
  input: Type.Object(ProjectPath),
  output: ProjectSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: projectView(await setDefaultProject(deps, stores, ctx, input.project_id)) }),
});

/** The project operations (SESSION-STATE §2). */
export const PROJECT_OPERATIONS = [createProjectOp, listProjectsOp, getProjectOp, updateProjectOp, archiveProjectOp, unarchiveProjectOp, setDefaultProjectOp];
