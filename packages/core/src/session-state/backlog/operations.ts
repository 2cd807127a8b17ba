import { Type } from "@sinclair/typebox";
import type { CoreDeps } from "../../deps.ts";
import { malformed } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import { BACKLOG_EVENTS_SHOWN, acknowledgeStaleness, amendBacklogItem, assignBacklogItem, backlogView, closingNotes, createBacklogItem, findBacklogItem, reassignBacklogItem, reprioritizeBacklogItem, thresholdsOf, triageBacklogItem } from "./backlog.ts";
import { parseBooleanFlag, parseEnum, parseTimestamp } from "../conventions/fields.ts";
import { BACKLOG_KINDS, BACKLOG_SORTS, BACKLOG_STATUSES, type BacklogFilters, type BacklogItem, type BacklogStatus } from "./backlog-item.ts";
import type { Project } from "../projects/project.ts";
import { resolveProject } from "../conventions/resolve-project.ts";
import { DAY_MS, parseDurationMs } from "../../time/duration.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { offsetPage } from "../../cursors/paged-list.ts";
import { CreatedBySchema, CursorField, ExpectedVersionField, FlagField, IdField, LimitField, MarkdownField, Nullable, PageOf, ProjectIdField, TagsField, Timestamp } from "../conventions/operation-fields.ts";

const StatusSchema = Type.Union(BACKLOG_STATUSES.map((s) => Type.Literal(s)), { description: "untriaged -> open -> in_progress; resolved and dismissed are final." });

/** The wire schema of a backlog item. */
export const BacklogItemSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the item." }),
    project_id: Type.String(),
    number: Type.Integer({ description: "Per project, from 1." }),
    title: Type.String(),
    description_md: Type.String(),
    acceptance_criteria_md: Type.String(),
    kind: Type.String(),
    labels: Type.Array(Type.String()),
    priority: Type.Integer({ description: "0 (highest) to 4." }),
    status: StatusSchema,
    assignee_ai_account_id: Nullable(Type.String()),
    discovered_from_id: Nullable(Type.String()),
    duplicate_of_id: Nullable(Type.String()),
    source: Type.Object({ build_session_id: Nullable(Type.String()), decision_id: Nullable(Type.String()), import_row: Nullable(Type.String()) }),
    closing: Type.Object({ pr_url: Nullable(Type.String()), commit_sha: Nullable(Type.String()), notes_md: Type.Array(Type.String()), reason: Nullable(Type.String()) }),
    resolved_at: Nullable(Timestamp()),
    dismissed_at: Nullable(Timestamp()),
    last_activity_at: Timestamp(),
    staleness_ack: Nullable(Type.Object({ at: Timestamp(), by: CreatedBySchema, reason: Type.String(), until: Timestamp(), count: Type.Integer() })),
    stale: Type.Boolean({ description: "Not final, inactive past the project's threshold, not snoozed." }),
    days_inactive: Type.Integer(),
    version: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    created_by: CreatedBySchema,
  },
  { description: "A backlog item." },
);
const EventSchema = Type.Object({ event_type: Type.String(), actor: CreatedBySchema, old_value: Nullable(Type.Unknown()), new_value: Nullable(Type.Unknown()), build_session_id: Nullable(Type.String()), at: Timestamp() });
const ItemPath = { backlog_item_id: IdField("ULID of the backlog item.") };
const view = (deps: CoreDeps, r: { after?: BacklogItem; item?: BacklogItem; project: Project }) => backlogView((r.after ?? r.item) as BacklogItem, r.project, deps.clock.now());

const createOp = defineSessionStateWrite({
  name: "create_backlog_item",
  summary: "File a backlog item (untriaged, or open with skip_triage): a bug, feature, task, chore or spike with priority 0-4 and labels.",
  http: { method: "POST", path: "/v1/backlog" },
  input: Type.Object({
    project_id: ProjectIdField,
    title: Type.String({ minLength: 1, maxLength: 200 }),
    description_md: Type.Optional(MarkdownField("What and why.")),
    acceptance_criteria_md: Type.Optional(MarkdownField("When it is done.")),
    kind: Type.Optional(Type.Union(BACKLOG_KINDS.map((k) => Type.Literal(k)), { description: "Default task." })),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 4, description: "0 highest, default 2." })),
    labels: Type.Optional(TagsField("Up to 20 labels, each ^[a-z0-9][a-z0-9._-]{0,39}$.")),
    discovered_from_id: Type.Optional(IdField("The item whose work turned this one up (same project).")),
    build_session_id: Type.Optional(IdField("The session it was found in (default: your active session in the project).")),
    skip_triage: Type.Optional(Type.Boolean({ description: "File it as open directly." })),
  }),
  output: BacklogItemSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await createBacklogItem(deps, stores, ctx, input)) }),
});

function parseStatuses(raw: string | undefined): BacklogStatus[] | null {
  if (raw === undefined || raw === "") return null;
  const list = raw.split(",").map((s) => s.trim());
  for (const s of list) if (!(BACKLOG_STATUSES as readonly string[]).includes(s)) throw malformed(`status must list values of ${BACKLOG_STATUSES.join(", ")}, comma-separated.`, { field: "status" });
  return list as BacklogStatus[];
}

function parsePriority(raw: string | number | undefined, field: string): number | null {
  if (raw === undefined || raw === "") return null;
  const n = typeof raw === "number" ? raw : /^\d$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 0 || n > 4) throw malformed(`${field} must be 0 to 4.`, { field });
  return n;
}

const searchOp = defineSessionStateRead({
  name: "search_backlog",
  summary: "Find a project's backlog items by words (title, description, criteria, labels), statuses (comma-separated), priority range, kind, label, assignee; ready=true gives open unassigned items by priority then age.",
  http: { path: "/v1/backlog/search", query: ["project_id", "q", "status", "priority_min", "priority_max", "kind", "label", "assignee", "unassigned", "ready", "created_after", "updated_after", "sort", "limit", "cursor"] },
  input: Type.Object({
    project_id: ProjectIdField,
    q: Type.Optional(Type.String({ maxLength: 500 })),
    status: Type.Optional(Type.String({ maxLength: 100, description: "Comma-separated statuses." })),
    priority_min: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    priority_max: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    kind: Type.Optional(Type.String()),
    label: Type.Optional(Type.String({ maxLength: 40 })),
    assignee: Type.Optional(Type.String({ maxLength: 64, description: "ai_account_id of the assignee." })),
    unassigned: FlagField("Only unassigned items."),
    ready: FlagField("Only open, unassigned items (sorted by priority then age unless sort says otherwise)."),
    created_after: Type.Optional(Type.String()),
    updated_after: Type.Optional(Type.String()),
    sort: Type.Optional(Type.String({ description: "priority (default: priority then oldest), newest, oldest, updated." })),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: PageOf(BacklogItemSchema, "A page of items."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    if (input.assignee !== undefined && !isUlid(input.assignee)) throw malformed("assignee must be an AI account id (ULID).", { field: "assignee" });
    const filters: BacklogFilters = {
      q: input.q === undefined || input.q.trim() === "" ? null : input.q,
      statuses: parseStatuses(input.status),
      priorityMin: parsePriority(input.priority_min, "priority_min"),
      priorityMax: parsePriority(input.priority_max, "priority_max"),
      kind: parseEnum(input.kind, BACKLOG_KINDS, "kind"),
      label: input.label ?? null,
      assignee: input.assignee ?? null,
      unassigned: parseBooleanFlag(input.unassigned, "unassigned") ?? false,
      ready: parseBooleanFlag(input.ready, "ready") ?? false,
      createdAfter: parseTimestamp(input.created_after, "created_after"),
      updatedAfter: parseTimestamp(input.updated_after, "updated_after"),
    };
    const sort = parseEnum(input.sort, BACKLOG_SORTS, "sort") ?? "priority";
    const now = deps.clock.now();
    const body = await offsetPage(deps, ctx, { resource: "backlog", filters: { project: project.id, sort, ...filters }, limit: input.limit, cursor: input.cursor }, (offset, limit) => deps.stores.backlog.search({ workspaceId: project.workspaceId, projectId: project.id, filters, sort, offset, limit }), (i) => backlogView(i, project, now));
    return { body };
  },
});

const staleOp = defineSessionStateRead({
  name: "list_stale_backlog",
  summary: "Backlog items inactive past the project's threshold (P30D, in_progress P7D by default), most inactive first; snoozed ones only with include_snoozed.",
  http: { path: "/v1/backlog/stale", query: ["project_id", "status", "assignee", "older_than", "include_snoozed", "limit", "cursor"] },
  input: Type.Object({
    project_id: ProjectIdField,
    status: Type.Optional(Type.String({ description: "untriaged, open or in_progress." })),
    assignee: Type.Optional(Type.String({ maxLength: 64 })),
    older_than: Type.Optional(Type.String({ description: "Only items inactive longer than this ISO 8601 duration." })),
    include_snoozed: FlagField("Also items whose staleness was acknowledged and is still snoozed."),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: PageOf(BacklogItemSchema, "A page of stale items."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    if (input.assignee !== undefined && !isUlid(input.assignee)) throw malformed("assignee must be an AI account id (ULID).", { field: "assignee" });
    const status = parseEnum(input.status, ["untriaged", "open", "in_progress"] as const, "status");
    const olderThanMs = input.older_than === undefined ? null : parseDurationMs(input.older_than, "older_than", { minMs: 0, maxMs: 3650 * DAY_MS });
    const includeSnoozed = parseBooleanFlag(input.include_snoozed, "include_snoozed") ?? false;
    const filters = { project: project.id, status, assignee: input.assignee ?? null, older_than: input.older_than ?? null, include_snoozed: includeSnoozed };
    const now = deps.clock.now();
    const body = await offsetPage(
      deps,
      ctx,
      { resource: "backlog-stale", filters, limit: input.limit, cursor: input.cursor },
      (offset, limit) => deps.stores.backlog.stale({ workspaceId: project.workspaceId, projectId: project.id, now, thresholds: thresholdsOf(project), status, assignee: input.assignee ?? null, olderThanMs, includeSnoozed, offset, limit }),
      (i) => backlogView(i, project, now),
    );
    return { body };
  },
});

const countOp = defineSessionStateRead({
  name: "count_backlog_by_status",
  summary: "How many of a project's backlog items are in each status, and how many are stale.",
  http: { path: "/v1/backlog/count-by-status", query: ["project_id"] },
  input: Type.Object({ project_id: ProjectIdField }),
  output: Type.Object({ untriaged: Type.Integer(), open: Type.Integer(), in_progress: Type.Integer(), resolved: Type.Integer(), dismissed: Type.Integer(), stale: Type.Integer() }),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    return { body: await deps.stores.backlog.countByStatus({ workspaceId: project.workspaceId, projectId: project.id, now: deps.clock.now(), thresholds: thresholdsOf(project) }) };
  },
});

const getOp = defineSessionStateRead({
  name: "get_backlog_item",
  summary: "Read a backlog item with its last 50 events (who changed what, when, in which session).",
  http: { path: "/v1/backlog/{backlog_item_id}" },
  input: Type.Object(ItemPath),
  output: Type.Object({ ...BacklogItemSchema.properties, events: Type.Array(EventSchema, { description: "Newest first, at most 50." }) }),
  async handler(deps, ctx, input) {
    const r = await findBacklogItem(deps.stores, ctx, input.backlog_item_id);
    const events = await deps.stores.recordEvents.listFor({ workspaceId: r.item.workspaceId, subjectType: "backlog_item", subjectId: r.item.id, limit: BACKLOG_EVENTS_SHOWN });
    return {
      body: {
        ...view(deps, r),
        events: events.map((e) => ({ event_type: e.eventType, actor: { ai_account_id: e.actor.aiAccountId, friendly_name: e.actor.friendlyName }, old_value: e.oldValue, new_value: e.newValue, build_session_id: e.buildSessionId, at: e.at.toISOString() })),
      },
    };
  },
});

const triageOp = defineSessionStateWrite({
  name: "triage_backlog_item",
  summary: "Triage an untriaged item: accept (open, optionally with priority and labels), dismiss (with a reason) or duplicate (of another item of the project).",
  http: { method: "POST", path: "/v1/backlog/{backlog_item_id}/triage" },
  input: Type.Object({
    ...ItemPath,
    decision: Type.Union([Type.Literal("accept"), Type.Literal("dismiss"), Type.Literal("duplicate")]),
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 4 })),
    labels: Type.Optional(TagsField()),
    reason: Type.Optional(Type.String({ maxLength: 2_000, description: "Required to dismiss." })),
    duplicate_of_id: Type.Optional(IdField("The item this one duplicates (same project, not itself).")),
  }),
  output: BacklogItemSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await triageBacklogItem(deps, stores, ctx, input.backlog_item_id, input)) }),
});

const assignOp = defineSessionStateWrite({
  name: "assign_backlog_item",
  summary: "Take an open, unassigned item (in_progress), for yourself or the named AI account.",
  http: { method: "POST", path: "/v1/backlog/{backlog_item_id}/assign" },
  input: Type.Object({ ...ItemPath, assignee_ai_account_id: Type.Optional(IdField("Default: you.")) }),
  output: BacklogItemSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await assignBacklogItem(deps, stores, ctx, input.backlog_item_id, input)) }),
});

const reassignOp = defineSessionStateWrite({
  name: "reassign_backlog_item",
  summary: "Hand an in_progress item to another AI account, or back to open with null.",
  http: { method: "POST", path: "/v1/backlog/{backlog_item_id}/reassign" },
  input: Type.Object({ ...ItemPath, assignee_ai_account_id: Nullable(IdField("The new assignee, or null (back to open)."), "The new assignee, or null."), reason: Type.String({ minLength: 1, maxLength: 2_000 }) }),
  output: BacklogItemSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await reassignBacklogItem(deps, stores, ctx, input.backlog_item_id, input)) }),
});

const reprioritizeOp = defineSessionStateWrite({
  name: "reprioritize_backlog_item",
  summary: "Change an item's priority (0 highest .. 4); final items give 409.",
  http: { method: "POST", path: "/v1/backlog/{backlog_item_id}/reprioritize" },
  input: Type.Object({ ...ItemPath, priority: Type.Integer({ minimum: 0, maximum: 4 }), reason: Type.Optional(Type.String({ maxLength: 2_000 })) }),
  output: BacklogItemSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await reprioritizeBacklogItem(deps, stores, ctx, input.backlog_item_id, input)) }),
});

const amendOp = defineSessionStateWrite({
  name: "amend_backlog_item",
  summary: "Change an item's title, description, acceptance criteria, labels or kind (expected_version guards a stale read); final items give 409.",
  http: { method: "POST", path: "/v1/backlog/{backlog_item_id}/amend" },
  input: Type.Object({
    ...ItemPath,
    expected_version: ExpectedVersionField,
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description_md: Type.Optional(MarkdownField("What and why.")),
    acceptance_criteria_md: Type.Optional(MarkdownField("When it is done.")),
    labels: Type.Optional(TagsField()),
    kind: Type.Optional(Type.Union(BACKLOG_KINDS.map((k) => Type.Literal(k)))),
  }),
  output: BacklogItemSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await amendBacklogItem(deps, stores, ctx, input.backlog_item_id, input)) }),
});

const closingOp = defineSessionStateWrite({
  name: "close_backlog_item",
  summary: "Close an item (outcome resolved: a PR, a commit or notes; dismissed: a reason), or add a note to a closed one; resolved and dismissed are final (another outcome gives 409).",
  http: { method: "POST", path: "/v1/backlog/{backlog_item_id}/closing-notes" },
  input: Type.Object({
    ...ItemPath,
    outcome: Type.Optional(Type.Union([Type.Literal("resolved"), Type.Literal("dismissed")])),
    pr_url: Type.Optional(Type.String({ maxLength: 2048 })),
    commit_sha: Type.Optional(Type.String({ maxLength: 64 })),
    notes_md: Type.Optional(MarkdownField("Closing notes.")),
    reason: Type.Optional(Type.String({ maxLength: 2_000, description: "Required to dismiss." })),
  }),
  output: BacklogItemSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await closingNotes(deps, stores, ctx, input.backlog_item_id, input)) }),
});

const ackOp = defineSessionStateWrite({
  name: "acknowledge_backlog_staleness",
  summary: "Acknowledge that a stale item is stale and snooze it (default its threshold, at most P90D); not activity; an item that is not stale gives 409.",
  http: { method: "POST", path: "/v1/backlog/{backlog_item_id}/acknowledge-staleness" },
  input: Type.Object({ ...ItemPath, reason: Type.String({ minLength: 1, maxLength: 2_000 }), snooze: Type.Optional(Type.String({ description: "ISO 8601 duration, up to P90D." })) }),
  output: BacklogItemSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: view(deps, await acknowledgeStaleness(deps, stores, ctx, input.backlog_item_id, input)) }),
});

/** The backlog operations (SESSION-STATE §5); fixed paths before `{backlog_item_id}`. */
export const BACKLOG_OPERATIONS = [createOp, searchOp, staleOp, countOp, getOp, triageOp, assignOp, reassignOp, reprioritizeOp, amendOp, closingOp, ackOp];
