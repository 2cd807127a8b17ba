import type { NewAuditEntry } from "@agentq/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgMessageStore } from "./pg-message-store.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// The batch ack updates each row by the ctid its lookup found. When another transaction changes
// the row while the batch waits for its lock, the update skips the row (the new version has
// another ctid) even when the lease still holds; the store must then try again rather than
// refuse a live lease. Each test holds a concurrent write open until the batch ack is seen
// waiting for the row's lock, then commits it.

let db: TestSchema;
const WS = "01WSBATCHACKCONCURRENT0000";
const RECIPIENT = "01ACCOUNTRECIPIENT00000000";
const SENDER = "01ACCOUNTSENDER00000000000";

beforeAll(async () => {
  db = await createTestSchema({ max: 4 });
  const { sql } = db;
  await sql`insert into workspaces (id, name, owner_person_id, state, created_at) values (${WS}, 'batch ack', 'p', 'active', now())`;
  await sql`insert into ai_accounts (workspace_id, id, friendly_name, state, created_at, updated_at)
    values (${WS}, ${RECIPIENT}, 'recipient', 'active', now(), now()), (${WS}, ${SENDER}, 'sender', 'active', now(), now())`;
});
afterAll(async () => {
  await db.drop();
});

async function heldMessage(id: string, leaseId: string): Promise<void> {
  await db.sql`
    insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, payload, state, accepted_at, expires_at, visible_at, delivery_count, lease_id, lease_claimed_at)
    values (${WS}, ${id}, ${SENDER}, 'sender', ${RECIPIENT}, 'recipient', 't', 1, '{}', 'held', now(), now() + interval '1 day', now() + interval '1 minute', 1, ${leaseId}, now())`;
}

function ackItem(id: string, leaseId: string) {
  const audit: NewAuditEntry = { workspaceId: WS, id: `A${id}`, occurredAt: new Date(), activity: "message.acknowledged", actorAccountId: RECIPIENT, actorCredentialId: null, subjectType: "message", subjectId: id, messageId: id, details: {}, operatorSignificant: false, requestId: null };
  return { messageId: id, leaseId, outcomeSummary: "done", audit };
}

/** Runs `write` on the message in a transaction kept open until the batch ack waits for the row's lock; returns the batch ack's results. */
async function ackDuringWrite(id: string, leaseId: string, write: (tx: TestSchema["sql"]) => Promise<unknown>) {
  const { sql } = db;
  const store = new PgMessageStore(sql);
  let acking: ReturnType<PgMessageStore["ackBatchIfHeld"]> | undefined;
  await sql.begin(async (tx) => {
    await write(tx as unknown as TestSchema["sql"]);
    const [self] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
    acking = store.ackBatchIfHeld({ workspaceId: WS, recipientId: RECIPIENT, items: [ackItem(id, leaseId)], caller: { accountId: RECIPIENT } });
    for (let waited = 0; ; waited += 20) {
      // Blocked by this transaction, not by anything else running in the database.
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where ${self?.pid ?? -1}::int = any(pg_blocking_pids(pid))`;
      if ((row?.n ?? 0) > 0) break;
      if (waited > 10_000) throw new Error("the batch ack never waited for the row's lock");
      await new Promise((r) => setTimeout(r, 20));
    }
  });
  return (await acking) ?? [];
}

describe("batch ack against a concurrent write of the same message", () => {
  it("acknowledges a message whose live lease was extended while the batch waited", async () => {
    await heldMessage("M1", "L1");
    const [result] = await ackDuringWrite("M1", "L1", (tx) => tx`update messages set visible_at = visible_at + interval '1 minute', last_extended_at = now() where workspace_id = ${WS} and id = 'M1'`);
    expect(result?.ok).toBe(true);
    const [row] = await db.sql<{ state: string }[]>`select state from messages where workspace_id = ${WS} and id = 'M1'`;
    expect(row?.state).toBe("acknowledged");
    const audit = await db.sql`select 1 from audit_log where workspace_id = ${WS} and message_id = 'M1' and activity = 'message.acknowledged'`;
    expect(audit.length).toBe(1);
  });

  it("still refuses when the concurrent write gave the message another lease", async () => {
    await heldMessage("M2", "L2");
    const [result] = await ackDuringWrite("M2", "L2", (tx) => tx`update messages set lease_id = 'L2-next', delivery_count = 2 where workspace_id = ${WS} and id = 'M2'`);
    expect(result?.ok).toBe(false);
    expect(result !== undefined && !result.ok ? result.snapshot?.leaseId : null).toBe("L2-next");
    const [row] = await db.sql<{ state: string }[]>`select state from messages where workspace_id = ${WS} and id = 'M2'`;
    expect(row?.state).toBe("held");
  });
});
