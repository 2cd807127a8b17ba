import { proveRecord, proveTree, sealAuditChain } from "@agentq/core";
import { TEST_PUBLIC_BASE_URL, TEST_SECRETS } from "@agentq/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgAuditLog, PgAuditTree } from "./pg-audit-log.ts";
import { systemClock } from "./pg-deps.ts";
import { messagesAckBatchIfHeld } from "./queries/messages.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// The hot statements must not depend on fresh statistics. In the million-message soak of
// 2026-11-24 the planner, trusting statistics taken before a recipient had messages (or before
// the sealer's queue grew), scanned a whole index per item of a batch ack (3 s for 100 items)
// and hashed the audit tables to disk per seal batch. Each test below takes statistics while the
// workspace is empty, then loads it, turns autovacuum off so nothing refreshes them, and counts
// the rows the statement read (pg_stat_xact_user_tables before and after, in one transaction: counted, not timed).

let db: TestSchema;
const WS = "01WSPLANSTABILITY000000000";
const RECIPIENT = "01ACCOUNTRECIPIENT00000000";
const OTHER = "01ACCOUNTOTHER000000000000";

beforeAll(async () => {
  db = await createTestSchema({ max: 2 });
  const { sql } = db;
  await sql`insert into workspaces (id, name, owner_person_id, state, created_at) values (${WS}, 'plans', 'p', 'active', now())`;
  await sql`insert into ai_accounts (workspace_id, id, friendly_name, state, created_at, updated_at)
    values (${WS}, ${RECIPIENT}, 'recipient', 'active', now(), now()), (${WS}, ${OTHER}, 'other', 'active', now(), now())`;
  for (const table of ["messages", "audit_log", "audit_unsealed", "audit_chain", "audit_tree_hashes", "audit_checkpoints"]) await sql`alter table ${sql(table)} set (autovacuum_enabled = false)`;
  // The tree's statistics are taken while it is empty: the seal test below then grows it to 6,000 leaves.
  await sql`analyze audit_tree_hashes`;
});
afterAll(async () => {
  await db.drop();
});

/**
 * What the connection read from `table` (sequential and index fetches) in counts not yet flushed
 * to the shared statistics: take it before and after, inside one transaction.
 */
async function rowsRead(tx: { unsafe: (q: string, args: string[]) => Promise<unknown[]> }, table: string): Promise<number> {
  // The table of this file's schema (search_path), not a same-named one of another file's schema.
  // Index entries read, not heap fetches: an index-only scan (once autovacuum has set the visibility
  // map) reads its rows without a heap fetch, so idx_tup_fetch would say 0.
  const [row] = (await tx.unsafe(
    `select coalesce(t.seq_tup_read, 0) + coalesce((select sum(pg_stat_get_xact_tuples_returned(i.indexrelid)) from pg_index i where i.indrelid = t.relid), 0) as n
       from pg_stat_xact_user_tables t where t.relid = $1::regclass`,
    [table],
  )) as { n: string }[];
  return Number(row?.n ?? 0);
}

function messageRows(sql: TestSchema["sql"], p: { from: number; count: number; recipient: string; state: "pending" | "held" }) {
  return sql`
    insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, payload, state, accepted_at, expires_at, visible_at, delivery_count, lease_id, lease_claimed_at)
    select ${WS}, 'M' || lpad(i::text, 9, '0'), ${OTHER}, 'other', ${p.recipient}, 'r', 't', 1, '{}', ${p.state}, now(), now() + interval '1 day',
           now() + interval '1 hour', ${p.state === "held" ? 1 : 0}, case when ${p.state} = 'held' then 'L' || i end, case when ${p.state} = 'held' then now() end
    from generate_series(${p.from}::int, ${p.from + p.count - 1}::int) i`;
}

describe("plans that hold with stale statistics", () => {
  it("a batch ack of 100 reads about one row per item, though the statistics predate the recipient's 3,000 held messages", async () => {
    const { sql } = db;
    await messageRows(sql, { from: 0, count: 2_000, recipient: OTHER, state: "pending" });
    await sql`analyze messages`;
    await messageRows(sql, { from: 10_000, count: 3_000, recipient: RECIPIENT, state: "held" });
    const items = Array.from({ length: 100 }, (_, k) => {
      const i = 10_000 + k * 7;
      const id = `M${String(i).padStart(9, "0")}`;
      const audit = { workspaceId: WS, id: `A${id}`, occurredAt: new Date(), activity: "message.acknowledged", actorAccountId: RECIPIENT, actorCredentialId: null, subjectType: "message", subjectId: id, messageId: id, details: {}, operatorSignificant: false, requestId: null };
      return { messageId: id, leaseId: `L${i}`, outcomeSummary: "ok", audit };
    });
    const { acked, read } = await sql.begin(async (tx) => {
      const start = await rowsRead(tx, "messages");
      // Several runs, so a cached generic plan (postgres.js prepares statements) is exercised too.
      let acked = 0;
      for (let batch = 0; batch < 5; batch++) {
        const slice = items.slice(batch * 20, batch * 20 + 20);
        acked += (await messagesAckBatchIfHeld(tx, { workspaceId: WS, recipientId: RECIPIENT, items: slice, caller: { accountId: RECIPIENT } })).size;
      }
      return { acked, read: (await rowsRead(tx, "messages")) - start };
    });
    expect(acked).toBe(100);
    // A key lookup per item plus the update's own fetch: a few hundred; the plan this replaced read 3,000 per item.
    expect(read).toBeLessThan(1_000);
  });

  it("a seal pass reads about one audit row per row it seals, though the statistics predate the queue", async () => {
    const { sql } = db;
    await sql`analyze audit_log`;
    await sql`analyze audit_unsealed`;
    await sql`
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${WS}, 'S' || lpad(i::text, 9, '0'), now() + i * interval '1 millisecond', 'message.sent', ${OTHER}, null, 'message', 'x', null, '{}', false, null
      from generate_series(1, 6000) i`;
    const audit = new PgAuditLog(sql, sql);
    const before = await sql<{ n: number }[]>`select count(*)::int as n from audit_unsealed where workspace_id = ${WS}`;
    expect(before[0]?.n).toBe(6_100); // and the first test's 100 acknowledgements
    const { sealed, readLog, readQueue } = await sql.begin(async (tx) => {
      const startLog = await rowsRead(tx, "audit_log");
      const startQueue = await rowsRead(tx, "audit_unsealed");
      const inTx = new PgAuditLog(tx, null);
      const sealed = await sealAuditChain({ stores: { audit: inTx }, clock: systemClock, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, WS, { maxRows: 3_000 });
      return { sealed, readLog: (await rowsRead(tx, "audit_log")) - startLog, readQueue: (await rowsRead(tx, "audit_unsealed")) - startQueue };
    });
    expect(sealed).toBe(3_000);
    expect(readLog).toBeLessThan(2 * 3_000);
    expect(readQueue).toBeLessThan(2 * 3_000);
    // The rest seals through the pool's own transactions.
    expect(await sealAuditChain({ stores: { audit }, clock: systemClock, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, WS)).toBe(3_100);
    const after = await sql<{ n: number }[]>`select count(*)::int as n from audit_unsealed where workspace_id = ${WS}`;
    expect(after[0]?.n).toBe(0);
  });

  it("the tree's statements read O(log n) stored rows, though the statistics predate the tree's 6,000 leaves", async () => {
    const { sql } = db;
    const tree = new PgAuditTree(sql);
    const size = (await tree.latestCheckpoint({ workspaceId: WS }))?.treeSize ?? 0;
    expect(size).toBeGreaterThan(6_000);
    const read = await sql.begin(async (tx) => {
      const start = await rowsRead(tx, "audit_tree_hashes");
      const inTx = new PgAuditTree(tx);
      const reader = (nodes: Parameters<PgAuditTree["readHashes"]>[0]["nodes"]) => inTx.readHashes({ workspaceId: WS, nodes });
      // Several proofs, so a cached generic plan is exercised too.
      for (const n of [0, 1_234, 4_095, size - 1]) await proveRecord(size, n, reader);
      for (const n of [1, 777, 4_096, size - 1]) await proveTree(size, n, reader);
      return (await rowsRead(tx, "audit_tree_hashes")) - start;
    });
    // Eight proofs of at most 2·log2(6,100) + 2 = 28 hashes each, one row per hash at most.
    expect(read).toBeGreaterThan(0);
    expect(read).toBeLessThan(8 * 28);
    // A seal pass reads the tree's right edge and its last leaf, not the tree.
    await sql`
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${WS}, 'T' || lpad(i::text, 9, '0'), now() + interval '1 hour' + i * interval '1 millisecond', 'message.sent', ${OTHER}, null, 'message', 'x', null, '{}', false, null
      from generate_series(1, 500) i`;
    const sealRead = await sql.begin(async (tx) => {
      const start = await rowsRead(tx, "audit_tree_hashes");
      expect(await sealAuditChain({ stores: { audit: new PgAuditLog(tx, null) }, clock: systemClock, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, WS)).toBe(500);
      return (await rowsRead(tx, "audit_tree_hashes")) - start;
    });
    expect(sealRead).toBeGreaterThan(0);
    expect(sealRead).toBeLessThan(50);
    expect((await tree.latestCheckpoint({ workspaceId: WS }))?.treeSize).toBe(size + 500);
  });
});
