import type { BacklogFilters, BacklogItem, BacklogSort, BacklogStatus, StalenessThresholds } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { json } from "./json.ts";

interface StoredAck {
  at: string;
  by: { ai_account_id: string; friendly_name: string };
  reason: string;
  until: string;
  count: number;
}

interface ItemRow {
  workspace_id: string;
  id: string;
  project_id: string;
  number: number;
  title: string;
  description_md: string;
  acceptance_criteria_md: string;
  kind: BacklogItem["kind"];
  labels: string[];
  priority: number;
  status: BacklogStatus;
  assignee_ai_account_id: string | null;
  discovered_from_id: string | null;
  duplicate_of_id: string | null;
  source_build_session_id: string | null;
  source_decision_id: string | null;
  source_import_row: string | null;
  closing_pr_url: string | null;
  closing_commit_sha: string | null;
  closing_notes: string[];
  closing_reason: string | null;
  resolved_at: Date | null;
  dismissed_at: Date | null;
  last_activity_at: Date;
  staleness_ack: StoredAck | null;
  snoozed_until: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  created_by_account_id: string;
  created_by_name: string;
}

const COLUMNS = [
  "workspace_id", "id", "project_id", "number", "title", "description_md", "acceptance_criteria_md", "kind", "labels", "priority", "status", "assignee_ai_account_id",
  "discovered_from_id", "duplicate_of_id", "source_build_session_id", "source_decision_id", "source_import_row", "closing_pr_url", "closing_commit_sha", "closing_notes",
  "closing_reason", "resolved_at", "dismissed_at", "last_activity_at", "staleness_ack", "snoozed_until", "version", "created_at", "updated_at", "created_by_account_id", "created_by_name",
];

function toItem(r: ItemRow): BacklogItem {
  const a = r.staleness_ack;
  return {
    workspaceId: r.workspace_id,
    id: r.id,
    projectId: r.project_id,
    number: r.number,
    title: r.title,
    descriptionMd: r.description_md,
    acceptanceCriteriaMd: r.acceptance_criteria_md,
    kind: r.kind,
    labels: r.labels,
    priority: r.priority,
    status: r.status,
    assigneeAiAccountId: r.assignee_ai_account_id,
    discoveredFromId: r.discovered_from_id,
    duplicateOfId: r.duplicate_of_id,
    source: { buildSessionId: r.source_build_session_id, decisionId: r.source_decision_id, importRow: r.source_import_row },
    closing: { prUrl: r.closing_pr_url, commitSha: r.closing_commit_sha, notesMd: r.closing_notes, reason: r.closing_reason },
    resolvedAt: r.resolved_at,
    dismissedAt: r.dismissed_at,
    lastActivityAt: r.last_activity_at,
    stalenessAck: a === null ? null : { at: new Date(a.at), by: { aiAccountId: a.by.ai_account_id, friendlyName: a.by.friendly_name }, reason: a.reason, until: new Date(a.until), count: a.count },
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    createdBy: { aiAccountId: r.created_by_account_id, friendlyName: r.created_by_name },
  };
}


function values(sql: SqlClient, i: BacklogItem) {
  const a = i.stalenessAck;
  const ack: StoredAck | null = a === null ? null : { at: a.at.toISOString(), by: { ai_account_id: a.by.aiAccountId, friendly_name: a.by.friendlyName }, reason: a.reason, until: a.until.toISOString(), count: a.count };
  return sql`
    ${i.workspaceId}, ${i.id}, ${i.projectId}, ${i.number}, ${i.title}, ${i.descriptionMd}, ${i.acceptanceCriteriaMd}, ${i.kind}, ${i.labels}::text[], ${i.priority}, ${i.status},
    ${i.assigneeAiAccountId}, ${i.discoveredFromId}, ${i.duplicateOfId}, ${i.source.buildSessionId}, ${i.source.decisionId}, ${i.source.importRow}, ${i.closing.prUrl},
    ${i.closing.commitSha}, ${json(sql, i.closing.notesMd)}::jsonb, ${i.closing.reason}, ${i.resolvedAt}, ${i.dismissedAt}, ${i.lastActivityAt},
    ${ack === null ? null : json(sql, ack)}::jsonb, ${a?.until ?? null}, ${i.version}, ${i.createdAt}, ${i.updatedAt}, ${i.createdBy.aiAccountId}, ${i.createdBy.friendlyName}`;
}

/** Inserts an item. */
export async function backlogItemsInsert(sql: SqlClient, p: { item: BacklogItem }): Promise<void> {
  await sql`insert into backlog_items (${sql(COLUMNS)}) values (${values(sql, p.item)})`;
}

/** The item, or null. */
export async function backlogItemsFind(sql: SqlClient, p: { workspaceId: string; id: string }): Promise<BacklogItem | null> {
  const [row] = await sql<ItemRow[]>`select ${sql(COLUMNS)} from backlog_items where workspace_id = ${p.workspaceId} and id = ${p.id}`;
  return row ? toItem(row) : null;
}

/**
 * Replaces an item in one guarded UPDATE: the stored version must be `expectedVersion`, and a
 * terminal status (resolved, dismissed) may only stay what it is (absorbing; the trigger
 * `backlog_items_terminal_absorbing` refuses the rest whoever writes).
 */
export async function backlogItemsReplace(sql: SqlClient, p: { item: BacklogItem; expectedVersion: number }): Promise<{ kind: "replaced" } | { kind: "conflict" }> {
  const rows = await sql`
    update backlog_items set (${sql(COLUMNS)}) = (${values(sql, p.item)})
    where workspace_id = ${p.item.workspaceId} and id = ${p.item.id} and version = ${p.expectedVersion}
      and (status not in ('resolved', 'dismissed') or status = ${p.item.status})
    returning id`;
  return rows.length > 0 ? { kind: "replaced" } : { kind: "conflict" };
}

function orderBy(sql: SqlClient, sort: BacklogSort) {
  if (sort === "priority") return sql`priority asc, id asc`;
  if (sort === "oldest") return sql`id asc`;
  if (sort === "updated") return sql`last_activity_at desc, id desc`;
  return sql`id desc`;
}

/** A page of a project's items, filtered and ordered; at most `limit + 1` from `offset`. */
export async function backlogItemsSearch(sql: SqlClient, p: { workspaceId: string; projectId: string; filters: BacklogFilters; sort: BacklogSort; offset: number; limit: number }): Promise<BacklogItem[]> {
  const f = p.filters;
  const rows = await sql<ItemRow[]>`
    select ${sql(COLUMNS)} from backlog_items
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId}
      and (${f.statuses === null ? null : f.statuses}::text[] is null or status = any(${f.statuses === null ? null : f.statuses}::text[]))
      and (${f.priorityMin}::int is null or priority >= ${f.priorityMin})
      and (${f.priorityMax}::int is null or priority <= ${f.priorityMax})
      and (${f.kind}::text is null or kind = ${f.kind})
      and (${f.label}::text is null or ${f.label} = any(labels))
      and (${f.assignee}::text is null or assignee_ai_account_id = ${f.assignee})
      and (not ${f.unassigned} or assignee_ai_account_id is null)
      and (not ${f.ready} or (status = 'open' and assignee_ai_account_id is null))
      and (${f.createdAfter}::timestamptz is null or created_at >= ${f.createdAfter})
      and (${f.updatedAfter}::timestamptz is null or updated_at >= ${f.updatedAfter})
      and (${f.q}::text is null or search_vector @@ websearch_to_tsquery('english', ${f.q}))
    order by ${orderBy(sql, p.sort)}
    offset ${p.offset} limit ${p.limit + 1}`;
  return rows.map(toItem);
}

/** The staleness condition at `now` (not terminal, inactive past the status's threshold), optionally ignoring snoozes. */
function staleWhere(sql: SqlClient, now: Date, t: StalenessThresholds, includeSnoozed: boolean) {
  const openSince = new Date(now.getTime() - t.openMs);
  const inProgressSince = new Date(now.getTime() - t.inProgressMs);
  return sql`status in ('untriaged', 'open', 'in_progress')
    and last_activity_at < case when status = 'in_progress' then ${inProgressSince}::timestamptz else ${openSince}::timestamptz end
    and (${includeSnoozed} or snoozed_until is null or snoozed_until < ${now})`;
}

/** Stale items, most inactive first (`backlog_items_activity_idx`); at most `limit + 1` from `offset`. */
export async function backlogItemsStale(sql: SqlClient, p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds; status: BacklogStatus | null; assignee: string | null; olderThanMs: number | null; includeSnoozed: boolean; offset: number; limit: number }): Promise<BacklogItem[]> {
  const olderThan = p.olderThanMs === null ? null : new Date(p.now.getTime() - p.olderThanMs);
  const rows = await sql<ItemRow[]>`
    select ${sql(COLUMNS)} from backlog_items
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and ${staleWhere(sql, p.now, p.thresholds, p.includeSnoozed)}
      and (${p.status}::text is null or status = ${p.status})
      and (${p.assignee}::text is null or assignee_ai_account_id = ${p.assignee})
      and (${olderThan}::timestamptz is null or last_activity_at < ${olderThan})
    order by last_activity_at asc, id asc
    offset ${p.offset} limit ${p.limit + 1}`;
  return rows.map(toItem);
}

/** Items by status and the stale count, in one statement. */
export async function backlogItemsCountByStatus(sql: SqlClient, p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds }): Promise<Record<BacklogStatus | "stale", number>> {
  const [row] = await sql<Record<BacklogStatus | "stale", number>[]>`
    select
      count(*) filter (where status = 'untriaged')::int as untriaged,
      count(*) filter (where status = 'open')::int as open,
      count(*) filter (where status = 'in_progress')::int as in_progress,
      count(*) filter (where status = 'resolved')::int as resolved,
      count(*) filter (where status = 'dismissed')::int as dismissed,
      count(*) filter (where ${staleWhere(sql, p.now, p.thresholds, false)})::int as stale
    from backlog_items where workspace_id = ${p.workspaceId} and project_id = ${p.projectId}`;
  return row ?? { untriaged: 0, open: 0, in_progress: 0, resolved: 0, dismissed: 0, stale: 0 };
}
