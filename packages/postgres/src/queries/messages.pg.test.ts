import { sealAuditChain, type IdempotencyRecord, type MessageRecord } from "@agentq/core";
import { fixtureId, makeAuditEntry, makeIdempotencyRecord, makeNewMessage, seedWorkspace, TEST_PUBLIC_BASE_URL, TEST_SECRETS, type SeededWorkspace } from "@agentq/core/testing";
import type postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createPgStores, PgTxRunner } from "../pg-stores.ts";
import { auditLogCountUnsealed } from "./audit-log.ts";
import { createTestSchema, type TestSchema } from "../testing/test-schema.ts";
import { messagesClaimBatchStatement } from "./messages.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema({ max: 10 });
});
afterAll(async () => {
  await db.drop();
});

const stores = () => createPgStores(db.sql);

async function sendParts(w: SeededWorkspace, key: string | null = `key-${fixtureId()}`) {
  const now = await stores().messages.now();
  const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now });
  return {
    message,
    audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, subjectType: "message", subjectId: message.id, occurredAt: now }),
    idempotency: key === null ? null : makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now }, { key, status: 201, bodyText: JSON.stringify({ message_id: message.id }) }),
  };
}

async function addWebhook(sql: postgres.Sql, w: SeededWorkspace, accountId: string, opts: { deleted?: boolean } = {}): Promise<string> {
  const id = fixtureId();
  await sql`
    insert into webhooks (workspace_id, id, ai_account_id, url, name, state, created_at, deleted_at)
    values (${w.workspace.id}, ${id}, ${accountId}, 'https://example.test/hook', 'hook', 'active', now(), ${opts.deleted ? new Date() : null})`;
  return id;
}

async function rowsOfSend(sql: postgres.Sql | postgres.TransactionSql, w: SeededWorkspace, messageId: string, key: string) {
  const [counts] = await sql<{ messages: number; keys: number; audit: number; outbox: number }[]>`
    select (select count(*) from messages where workspace_id = ${w.workspace.id} and id = ${messageId})::int as messages,
           (select count(*) from idempotency_keys where workspace_id = ${w.workspace.id} and key = ${key})::int as keys,
           (select count(*) from audit_log where workspace_id = ${w.workspace.id} and message_id = ${messageId})::int as audit,
           (select count(*) from webhook_outbox where workspace_id = ${w.workspace.id} and message_id = ${messageId})::int as outbox`;
  return counts;
}

describe("acceptSend on PostgreSQL", () => {
  let w: SeededWorkspace;
  beforeEach(async () => {
    w = await seedWorkspace(stores());
  });

  it("writes one outbox row per live webhook of the recipient, none for deleted hooks or other accounts", async () => {
    const live1 = await addWebhook(db.sql, w, w.recipient.id);
    const live2 = await addWebhook(db.sql, w, w.recipient.id);
    await addWebhook(db.sql, w, w.recipient.id, { deleted: true });
    await addWebhook(db.sql, w, w.bystander.id);
    const parts = await sendParts(w);
    expect((await stores().messages.acceptSend(parts)).kind).toBe("accepted");
    const outbox = await db.sql<{ webhook_id: string; event_type: string; state: string; payload: { message_id: string; recipient: { friendly_name: string }; priority: string } }[]>`
      select webhook_id, event_type, state, payload from webhook_outbox where workspace_id = ${w.workspace.id} and message_id = ${parts.message.id}`;
    expect(outbox.map((r) => r.webhook_id).sort()).toEqual([live1, live2].sort());
    for (const r of outbox) {
      expect(r).toMatchObject({ event_type: "message.sent", state: "pending", payload: { message_id: parts.message.id, recipient: { friendly_name: w.recipient.friendlyName }, priority: "normal" } });
    }
  });

  it("a send whose transaction fails midway leaves none of its rows: message, idempotency key, audit row, outbox row", async () => {
    await addWebhook(db.sql, w, w.recipient.id);
    const parts = await sendParts(w);
    const key = (parts.idempotency as IdempotencyRecord).key;
    const failure = new Error("fault after the send statement");
    // The control: the same send committed leaves all four rows.
    expect(await new PgTxRunner(db.sql).run(async (s) => (await s.messages.acceptSend(parts)).kind)).toBe("accepted");
    // The committed send above is the control; now the same shape, failing before commit.
    const failing = await sendParts(w);
    const failingKey = (failing.idempotency as IdempotencyRecord).key;
    await expect(
      new PgTxRunner(db.sql).run(async (s) => {
        expect((await s.messages.acceptSend(failing)).kind).toBe("accepted");
        // Inside the transaction every row of the send is there...
        const seen = await s.messages.findForParticipant({ workspaceId: w.workspace.id, messageId: failing.message.id, accountId: w.recipient.id });
        expect(seen).not.toBeNull();
        throw failure;
      }),
    ).rejects.toBe(failure);
    // ...and after the rollback none is.
    expect(await rowsOfSend(db.sql, w, failing.message.id, failingKey)).toEqual({ messages: 0, keys: 0, audit: 0, outbox: 0 });
    expect(await rowsOfSend(db.sql, w, parts.message.id, key)).toEqual({ messages: 1, keys: 1, audit: 1, outbox: 1 });
  });

  it("a send statement that fails inside PostgreSQL leaves none of its rows (the statement is atomic)", async () => {
    await addWebhook(db.sql, w, w.recipient.id);
    const parts = await sendParts(w);
    const key = (parts.idempotency as IdempotencyRecord).key;
    // An audit id that already exists makes the audit insert, the third write of the statement, fail.
    const taken = makeAuditEntry(w.workspace.id);
    await stores().audit.append({ entry: taken });
    await expect(stores().messages.acceptSend({ ...parts, audit: { ...parts.audit, id: taken.id } })).rejects.toThrow();
    expect(await rowsOfSend(db.sql, w, parts.message.id, key)).toEqual({ messages: 0, keys: 0, audit: 0, outbox: 0 });
  });

  it("a replay of a stored key answers with the stored record even after the recipient was revoked", async () => {
    const parts = await sendParts(w);
    expect((await stores().messages.acceptSend(parts)).kind).toBe("accepted");
    await stores().accounts.transition({ workspaceId: w.workspace.id, accountId: w.recipient.id, from: ["active"], to: "revoked", now: new Date() });
    const replay = await sendParts(w, (parts.idempotency as IdempotencyRecord).key);
    expect(await stores().messages.acceptSend(replay)).toMatchObject({ kind: "idempotency_exists", record: { requestId: parts.idempotency?.requestId } });
    expect(await stores().messages.acceptSend(await sendParts(w))).toEqual({ kind: "recipient_gone" });
  });

  it("concurrent sends with one key in transactions on separate connections write once", async () => {
    const key = `key-${fixtureId()}`;
    const other = db.connect({ max: 8 });
    const runners = [new PgTxRunner(db.sql), new PgTxRunner(other)];
    const attempts = await Promise.all(
      Array.from({ length: 16 }, async (_, i) => {
        const parts = await sendParts(w, key);
        return (runners[i % 2] as PgTxRunner).run(async (s) => s.messages.acceptSend(parts));
      }),
    );
    const accepted = attempts.filter((r): r is { kind: "accepted"; message: MessageRecord } => r.kind === "accepted");
    expect(accepted).toHaveLength(1);
    const winner = (accepted[0] as { message: MessageRecord }).message;
    for (const r of attempts) if (r.kind !== "accepted") expect(r).toMatchObject({ kind: "idempotency_exists", record: { bodyText: JSON.stringify({ message_id: winner.id }) } });
    const [count] = await db.sql<{ n: number }[]>`select count(*)::int as n from messages where workspace_id = ${w.workspace.id}`;
    expect(count?.n).toBe(1);
  });
});

describe("claim on PostgreSQL", () => {
  it("uses the partial claim index in dequeue order, whatever the number of finished or other recipients' messages", async () => {
    const w = await seedWorkspace(stores());
    const now = await stores().messages.now();
    // Many finished messages of the recipient and others, a few claimable ones.
    await db.sql`
      insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, payload, state, accepted_at, expires_at, visible_at)
      select ${w.workspace.id}, 'X' || lpad(g::text, 25, '0'), ${w.sender.id}, 's', case when g % 3 = 0 then ${w.recipient.id} else ${w.bystander.id} end, 'r', 'directive', g % 4, '{}'::jsonb,
             case when g % 300 = 0 or (g % 3 <> 0 and g % 2 = 0) then 'pending' else 'acknowledged' end, ${now}, ${now}::timestamptz + interval '1 day', ${now}
      from generate_series(1, 6000) as g`;
    await db.sql`analyze messages`;
    const plan = await db.sql<{ "QUERY PLAN": string }[]>`
      explain ${messagesClaimBatchStatement(db.sql, { workspaceId: w.workspace.id, recipientId: w.recipient.id, max: 10, visibilityTimeoutMs: 60_000, maxDeliveries: 10, auditIds: [fixtureId()], requestId: null, credentialId: null }, 10)}`;
    const text = plan.map((r) => r["QUERY PLAN"]).join("\n");
    expect(text).toMatch(/Index Scan using messages_claim_idx on messages/);
    // The index yields rows in dequeue order: nothing is sorted before the rows are locked.
    expect(text).not.toMatch(/Sort Key: messages\.priority_rank/);
  });

  it("8 consumers on their own connections over 1,000 messages: no message under two live leases, each delivered once", async () => {
    const w = await seedWorkspace(stores());
    const now = await stores().messages.now();
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) => {
        const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now }, { priority: (["low", "normal", "high", "urgent"] as const)[i % 4] });
        return stores().messages.acceptSend({ message, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, occurredAt: now }), idempotency: null });
      }),
    );
    const held = new Map<string, string>();
    const deliveries = new Map<string, number>();
    let violations = 0;
    const consumer = async () => {
      const own = db.connect({ max: 1 });
      const s = createPgStores(own);
      for (;;) {
        const { claimed } = await s.messages.claimBatch({ workspaceId: w.workspace.id, recipientId: w.recipient.id, max: 25, visibilityTimeoutMs: 600_000, maxDeliveries: 10, auditIds: Array.from({ length: 25 }, () => fixtureId()), requestId: null, credentialId: null });
        if (claimed.length === 0) return;
        for (const m of claimed) {
          if (held.has(m.id)) violations++;
          held.set(m.id, m.leaseId as string);
          deliveries.set(m.id, (deliveries.get(m.id) ?? 0) + 1);
        }
        for (const m of claimed) {
          const r = await s.messages.ackIfHeld({ workspaceId: w.workspace.id, messageId: m.id, recipientId: w.recipient.id, leaseId: m.leaseId as string, outcomeSummary: null, audit: makeAuditEntry(w.workspace.id, { activity: "message.acknowledged", messageId: m.id, occurredAt: now }) });
          if (!r.ok) violations++;
          held.delete(m.id);
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, consumer));
    expect(violations).toBe(0);
    expect(deliveries.size).toBe(1000);
    expect([...deliveries.values()].every((n) => n === 1)).toBe(true);
  }, 120_000);
});

describe("sealing on PostgreSQL", () => {
  it("is exclusive per workspace: a sealer finds the advisory lock held and returns null", async () => {
    const w = await seedWorkspace(stores());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const holding = new Promise<void>((r) => (locked = r));
    const first = stores().audit.withSealLock({ workspaceId: w.workspace.id }, async () => {
      locked();
      await gate;
      return "first";
    });
    await holding;
    expect(await stores().audit.withSealLock({ workspaceId: w.workspace.id }, async () => "second")).toBeNull();
    const other = await seedWorkspace(stores());
    expect(await stores().audit.withSealLock({ workspaceId: other.workspace.id }, async () => "other workspace")).toBe("other workspace");
    release();
    expect(await first).toBe("first");
    expect(await stores().audit.withSealLock({ workspaceId: w.workspace.id }, async () => "after")).toBe("after");
  });

  it("concurrent sealers while rows keep arriving seal every row exactly once into one verifiable chain", async () => {
    const { verifyAuditChain } = await import("@agentq/core");
    const w = await seedWorkspace(stores());
    const base = (await stores().messages.now()).getTime();
    const clock = { now: () => new Date(base) };
    const appendMany = (n: number, offset: number) =>
      Promise.all(Array.from({ length: n }, (_, i) => stores().audit.append({ entry: makeAuditEntry(w.workspace.id, { occurredAt: new Date(base + offset + i), details: { i } }) })));
    await appendMany(200, 0);
    const sealers = Array.from({ length: 6 }, () => sealAuditChain({ stores: stores(), clock, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, w.workspace.id));
    await Promise.all([...sealers, appendMany(100, 1000)]);
    const results = await Promise.all(sealers);
    // Whatever the interleaving, a final pass seals the rest.
    await sealAuditChain({ stores: stores(), clock, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, w.workspace.id);
    expect(results.some((r) => r !== null)).toBe(true);
    const chain = await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 1000 });
    expect(chain).toHaveLength(300);
    expect(chain.map((r) => r.seq)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    expect(verifyAuditChain(chain)).toMatchObject({ ok: true, checked: 300 });
    expect(await auditLogCountUnsealed(db.sql, { workspaceId: w.workspace.id })).toBe(0);
    // The Merkle tree followed the chain, leaf for row, and its checkpoint commits to all of it.
    const { auditLeafHash, TreeFrontier } = await import("@agentq/core");
    const frontier = TreeFrontier.empty();
    for (const row of chain) frontier.append(auditLeafHash(row, row.seq as number));
    const checkpoint = await stores().auditTree.latestCheckpoint({ workspaceId: w.workspace.id });
    expect(checkpoint?.treeSize).toBe(300);
    expect(checkpoint?.rootHash).toEqual(frontier.root());
  });

  it("the verifier names a sealed row altered in SQL, and detects a deleted one", async () => {
    const { verifyAuditChain } = await import("@agentq/core");
    const w = await seedWorkspace(stores());
    const base = (await stores().messages.now()).getTime();
    for (let i = 0; i < 10; i++) await stores().audit.append({ entry: makeAuditEntry(w.workspace.id, { occurredAt: new Date(base + i), details: { i } }) });
    await sealAuditChain({ stores: stores(), clock: { now: () => new Date(base) }, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, w.workspace.id);
    const chain = await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 });
    expect(verifyAuditChain(chain)).toMatchObject({ ok: true, checked: 10 });
    const altered = chain[4] as (typeof chain)[number];
    await db.sql`update audit_log set details = '{"i": 400}'::jsonb where workspace_id = ${w.workspace.id} and id = ${altered.id}`;
    const afterAlter = await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 });
    expect(verifyAuditChain(afterAlter)).toEqual({ ok: false, checked: 4, row: { id: altered.id, seq: 5 }, reason: "changed" });
    await db.sql`update audit_log set details = ${db.sql.json(altered.details as postgres.JSONValue)}::jsonb where workspace_id = ${w.workspace.id} and id = ${altered.id}`;
    expect(verifyAuditChain(await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 }))).toMatchObject({ ok: true });
    const deleted = chain[6] as (typeof chain)[number];
    await db.sql`delete from audit_log where workspace_id = ${w.workspace.id} and id = ${deleted.id}`;
    const afterDelete = await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 });
    expect(verifyAuditChain(afterDelete)).toEqual({ ok: false, checked: 6, row: { id: (chain[7] as (typeof chain)[number]).id, seq: 8 }, reason: "removed" });
  });

  it("audit rows are never updated by sealing; the verifier names a row whose link was deleted or moved in SQL", async () => {
    const { verifyAuditChain } = await import("@agentq/core");
    const w = await seedWorkspace(stores());
    const base = (await stores().messages.now()).getTime();
    for (let i = 0; i < 6; i++) await stores().audit.append({ entry: makeAuditEntry(w.workspace.id, { occurredAt: new Date(base + i), details: { i } }) });
    const xmin = async () => (await db.sql<{ xmin: string }[]>`select xmin::text from audit_log where workspace_id = ${w.workspace.id} order by occurred_at, id`).map((r) => r.xmin);
    const before = await xmin();
    expect(await sealAuditChain({ stores: stores(), clock: { now: () => new Date(base) }, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, w.workspace.id)).toBe(6);
    // No row got a new tuple version: sealing only appended links.
    expect(await xmin()).toEqual(before);
    const chain = await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 });
    expect(verifyAuditChain(chain)).toMatchObject({ ok: true, checked: 6 });
    const row = (i: number) => chain[i] as (typeof chain)[number];
    // Two links swapped (rows reordered in the chain): the first row out of place is named.
    await db.sql.begin(async (tx) => {
      await tx`update audit_chain set seq = -seq where workspace_id = ${w.workspace.id} and seq in (2, 3)`;
      await tx`update audit_chain set seq = case seq when -2 then 3 else 2 end where workspace_id = ${w.workspace.id} and seq in (-2, -3)`;
    });
    const swapped = await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 });
    expect(verifyAuditChain(swapped)).toEqual({ ok: false, checked: 1, row: { id: row(2).id, seq: 2 }, reason: "changed" });
    await db.sql.begin(async (tx) => {
      await tx`update audit_chain set seq = -seq where workspace_id = ${w.workspace.id} and seq in (2, 3)`;
      await tx`update audit_chain set seq = case seq when -2 then 3 else 2 end where workspace_id = ${w.workspace.id} and seq in (-2, -3)`;
    });
    expect(verifyAuditChain(await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 }))).toMatchObject({ ok: true, checked: 6 });
    // A link deleted: the row after the gap is named.
    await db.sql`delete from audit_chain where workspace_id = ${w.workspace.id} and seq = 4`;
    const gap = await stores().audit.readChain({ workspaceId: w.workspace.id, afterSeq: 0, limit: 100 });
    expect(verifyAuditChain(gap)).toEqual({ ok: false, checked: 3, row: { id: row(4).id, seq: 5 }, reason: "removed" });
  });
});
