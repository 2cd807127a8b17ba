import type { Notice, NoticeItem, NoticeLocation, NoticeState } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { docOf } from "./json.ts";

interface NoticeRow {
  body: StoredNotice;
}

/** The notice as its `body` document holds it: the Notice with ISO strings for dates. */
type StoredNotice = Record<string, unknown>;

const date = (v: unknown): Date => new Date(v as string);
const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : new Date(v as string));

/** The notice from its stored document (dates revived). */
function toNotice(doc: StoredNotice): Notice {
  const n = doc as unknown as Notice & Record<string, unknown>;
  const at = <T extends { at: unknown }>(xs: T[]) => xs.map((x) => ({ ...x, at: date(x.at) }));
  return {
    ...n,
    supplements: at(n.supplements),
    informationRequests: at(n.informationRequests),
    events: at(n.events),
    decision: n.decision === null ? null : { ...n.decision, decidedAt: date(n.decision.decidedAt) },
    measures: n.measures.map((m) => ({ ...m, appliedAt: date(m.appliedAt), liftedAt: dateOrNull(m.liftedAt) })),
    counterNotice: n.counterNotice === null ? null : { ...n.counterNotice, filedAt: date(n.counterNotice.filedAt) },
    restoration: n.restoration === null ? null : { earliestAt: date(n.restoration.earliestAt), latestAt: date(n.restoration.latestAt) },
    courtAction: n.courtAction === null ? null : { ...n.courtAction, recordedAt: date(n.courtAction.recordedAt) },
    disclosedAt: dateOrNull(n.disclosedAt),
    receivedAt: date(n.receivedAt),
    updatedAt: date(n.updatedAt),
  };
}

/** The column values of a notice (the selected-on fields, and the whole notice as the body). */
function columns(sql: SqlClient, n: Notice) {
  return {
    id: n.id,
    kind: n.kind,
    state: n.state,
    category: n.category,
    status_token_hash: n.statusTokenHash,
    affected_workspace_id: n.affectedWorkspaceId,
    disclosed_at: n.disclosedAt,
    restoration_earliest_at: n.restoration?.earliestAt ?? null,
    court_action_at: n.courtAction?.recordedAt ?? null,
    received_at: n.receivedAt,
    updated_at: n.updatedAt,
    version: n.version,
    body: docOf(sql, n),
  };
}

const COLUMN_NAMES = ["id", "kind", "state", "category", "status_token_hash", "affected_workspace_id", "disclosed_at", "restoration_earliest_at", "court_action_at", "received_at", "updated_at", "version", "body"] as const;

/** Inserts a notice. */
export async function noticesInsert(sql: SqlClient, p: { notice: Notice }): Promise<void> {
  await sql`insert into notices ${sql(columns(sql, p.notice), ...COLUMN_NAMES)}`;
}

/** The notice, or null. */
export async function noticesFind(sql: SqlClient, p: { noticeId: string }): Promise<Notice | null> {
  const [row] = await sql<NoticeRow[]>`select body from notices where id = ${p.noticeId}`;
  return row ? toNotice(row.body) : null;
}

/** Replaces a notice in one guarded UPDATE: the stored version must be `expectedVersion` (the row lock serialises concurrent steps; the loser matches nothing). */
export async function noticesReplace(sql: SqlClient, p: { notice: Notice; expectedVersion: number }): Promise<{ kind: "replaced" } | { kind: "conflict" }> {
  const rows = await sql`
    update notices set ${sql(columns(sql, p.notice), ...COLUMN_NAMES)}
    where id = ${p.notice.id} and version = ${p.expectedVersion}
    returning id`;
  return rows.length > 0 ? { kind: "replaced" } : { kind: "conflict" };
}

/** A page of a workspace's disclosed notices, newest first; at most `limit + 1`. */
export async function noticesListDisclosed(sql: SqlClient, p: { workspaceId: string; after: string | null; limit: number }): Promise<Notice[]> {
  const rows = await sql<NoticeRow[]>`
    select body from notices
    where affected_workspace_id = ${p.workspaceId} and disclosed_at is not null and (${p.after}::text is null or id < ${p.after})
    order by id desc limit ${p.limit + 1}`;
  return rows.map((r) => toNotice(r.body));
}

/** A page of every notice, newest first, optionally of one state; at most `limit + 1`. */
export async function noticesList(sql: SqlClient, p: { state: NoticeState | null; after: string | null; limit: number }): Promise<Notice[]> {
  const rows = await sql<NoticeRow[]>`
    select body from notices
    where (${p.state}::text is null or state = ${p.state}) and (${p.after}::text is null or id < ${p.after})
    order by id desc limit ${p.limit + 1}`;
  return rows.map((r) => toNotice(r.body));
}

/** Notices received in [from, to), oldest first. */
export async function noticesListReceivedBetween(sql: SqlClient, p: { from: Date; to: Date }): Promise<Notice[]> {
  const rows = await sql<NoticeRow[]>`select body from notices where received_at >= ${p.from} and received_at < ${p.to} order by received_at, id`;
  return rows.map((r) => toNotice(r.body));
}

/** Contested DMCA notices without a court action whose restoration window opened by `now` (the partial index notices_restoration_due_idx). */
export async function noticesDueRestorations(sql: SqlClient, p: { now: Date; limit: number }): Promise<Notice[]> {
  const rows = await sql<NoticeRow[]>`
    select body from notices
    where state = 'contested' and kind = 'dmca' and court_action_at is null and restoration_earliest_at <= ${p.now}
    order by restoration_earliest_at limit ${p.limit}`;
  return rows.map((r) => toNotice(r.body));
}

/**
 * The item a location names. Items are keyed by (workspace_id, id); without the location's
 * workspace the lookup probes each workspace's primary key (a lateral join over workspaces:
 * one index probe per workspace, no sequential scan of an item table).
 */
export async function noticesLocate(sql: SqlClient, p: { location: NoticeLocation }): Promise<NoticeItem["resolved"]> {
  const l = p.location;
  const ws = l.workspace_id ?? null;
  const id = l.id ?? null;
  if (l.type === "workspace") {
    const [row] = await sql<{ id: string }[]>`select id from workspaces where id = ${id}`;
    return row ? { workspaceId: row.id, itemType: "workspace", itemId: row.id } : null;
  }
  if (l.type === "message") {
    const [row] = await sql<{ workspace_id: string; sender_id: string }[]>`
      select w.id as workspace_id, m.sender_id from workspaces w
      join lateral (select sender_id from messages where workspace_id = w.id and id = ${id}) m on true
      where (${ws}::text is null or w.id = ${ws}) limit 1`;
    return row && id !== null ? { workspaceId: row.workspace_id, itemType: "message", itemId: id, senderId: row.sender_id } : null;
  }
  if (l.type === "ai_account") {
    const [row] = await sql<{ workspace_id: string; id: string }[]>`
      select w.id as workspace_id, a.id from workspaces w
      join lateral (
        select id from ai_accounts
        where workspace_id = w.id and (case when ${id}::text is not null then id = ${id} else friendly_name = ${l.name ?? null} and state <> 'revoked' end)
      ) a on true
      where (${ws}::text is null or w.id = ${ws}) limit 1`;
    return row ? { workspaceId: row.workspace_id, itemType: "ai_account", itemId: row.id } : null;
  }
  if (l.type === "session_record") {
    const [row] = await sql<{ workspace_id: string }[]>`
      select w.id as workspace_id from workspaces w
      join lateral (
        select 1 from projects where workspace_id = w.id and id = ${id}
        union all select 1 from decision_log_entries where workspace_id = w.id and id = ${id}
        union all select 1 from build_sessions where workspace_id = w.id and id = ${id}
        union all select 1 from backlog_items where workspace_id = w.id and id = ${id}
        limit 1
      ) r on true
      where (${ws}::text is null or w.id = ${ws}) limit 1`;
    return row && id !== null ? { workspaceId: row.workspace_id, itemType: "session_record", itemId: id } : null;
  }
  return null;
}
