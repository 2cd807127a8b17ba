import type { SqlClient } from "../sql-client.ts";

/** One workspace's waiting messages, as `queueStatsRead` counts them. */
export interface WorkspaceQueueStats {
  workspaceId: string;
  /** Messages pending (claimable now or delayed), not expired. */
  pending: number;
  /** Messages held under a live lease. */
  held: number;
  /** Messages whose lease ran out and that no claim has taken back yet. */
  leaseExpired: number;
  /** Messages held for an approver's decision (DESIGN §2c), not expired. */
  heldForApproval: number;
  /** The accepted time of the oldest pending message, or null when none is pending. */
  oldestPendingAt: Date | null;
}

/** What waits across the database, for the metrics gauges and the minute series (DESIGN §2c Telemetry). */
export interface QueueStats {
  /** The database clock when the statement ran. */
  now: Date;
  /** Each workspace with pending, held or held-for-approval messages. */
  workspaces: WorkspaceQueueStats[];
  /** Webhook deliveries not yet delivered or dead (pending or retrying). */
  outboxDepth: number;
  /** Audit rows the sealer has not linked into their chain yet. */
  unsealedAuditRows: number;
  /** Connections to this database (every process's pools), and those running a statement, this one excepted. */
  connections: { open: number; active: number };
}

/**
 * The telemetry's one periodic read, a few times a minute and never per request: pending and
 * held messages per workspace (a range of the partial expiry index), those held for approval,
 * the outbox depth (its partial due index), the sealer's backlog and the database's client
 * connections (pg_stat_activity). Takes no lock; every count
 * is read in one snapshot (one statement).
 */
export async function queueStatsRead(sql: SqlClient): Promise<QueueStats> {
  const rows = await sql<{ now: Date; workspace_id: string | null; pending: number | null; held: number | null; lease_expired: number | null; held_for_approval: number | null; oldest_pending_at: Date | null; outbox_depth: number; unsealed: number; connections_open: number; connections_active: number }[]>`
    with waiting as (${waitingPerWorkspace(sql)})
    select now() as now, w.workspace_id, w.pending, w.held, w.lease_expired, w.held_for_approval, w.oldest_pending_at,
           (select count(*) from webhook_outbox where state in ('pending', 'retrying'))::int as outbox_depth,
           (select count(*) from audit_unsealed)::int as unsealed,
           c.connections_open, c.connections_active
    from (
      select count(*)::int as connections_open, (count(*) filter (where state <> 'idle'))::int as connections_active
      from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
    ) as c left join waiting w on true`;
  const first = rows[0];
  return {
    now: first?.now ?? new Date(),
    workspaces: rows
      .filter((r) => r.workspace_id !== null)
      .map((r) => ({ workspaceId: r.workspace_id as string, pending: r.pending ?? 0, held: r.held ?? 0, leaseExpired: r.lease_expired ?? 0, heldForApproval: r.held_for_approval ?? 0, oldestPendingAt: r.oldest_pending_at })),
    outboxDepth: first?.outbox_depth ?? 0,
    unsealedAuditRows: first?.unsealed ?? 0,
    connections: { open: first?.connections_open ?? 0, active: first?.connections_active ?? 0 },
  };
}

/**
 * What waits per workspace now: pending, held under a live lease, held with the lease run out,
 * held for approval, and the oldest pending message's accepted time. A range of the partial
 * expiry index (state in ('pending', 'held', 'held_for_approval'), expires_at); shared by the
 * gauges and the minute series, so both read the same.
 */
export function waitingPerWorkspace(sql: SqlClient) {
  return sql`
      select workspace_id,
             count(*) filter (where state = 'pending')::int as pending,
             count(*) filter (where state = 'held' and visible_at > now())::int as held,
             count(*) filter (where state = 'held' and visible_at <= now())::int as lease_expired,
             count(*) filter (where state = 'held_for_approval')::int as held_for_approval,
             min(accepted_at) filter (where state = 'pending') as oldest_pending_at
      from messages
      where state in ('pending', 'held', 'held_for_approval') and expires_at > now()
      group by workspace_id`;
}
