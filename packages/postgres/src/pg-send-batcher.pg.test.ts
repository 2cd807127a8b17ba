import { fixtureId, makeAuditEntry, makeIdempotencyRecord, makeNewMessage, seedWorkspace, type SeededWorkspace } from "@agentq/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgMessageStore } from "./pg-message-store.ts";
import { SendBatcher } from "./pg-send-batcher.ts";
import { createPgStores } from "./pg-stores.ts";
import { messagesAcceptSend, messagesAcceptSends, type AcceptSendItem } from "./queries/messages.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema({ max: 10 });
});
afterAll(async () => {
  await db.drop();
});

const stores = () => createPgStores(db.sql);

async function item(w: SeededWorkspace, opts: { key?: string | null; recipientName?: string; caller?: string } = {}): Promise<AcceptSendItem> {
  const now = await stores().messages.now();
  const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now }, opts.recipientName === undefined ? {} : { recipientName: opts.recipientName });
  const key = opts.key === undefined ? `key-${fixtureId()}` : opts.key;
  return {
    message,
    audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, subjectType: "message", subjectId: message.id, occurredAt: now }),
    idempotency: key === null ? null : makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now }, { key, status: 201, bodyText: JSON.stringify({ message_id: message.id }) }),
    ...(opts.caller === undefined ? {} : { caller: { accountId: opts.caller } }),
  };
}

const counts = async (w: SeededWorkspace) =>
  (
    await db.sql<{ messages: number; audit: number; keys: number }[]>`
      select (select count(*) from messages where workspace_id = ${w.workspace.id})::int as messages,
             (select count(*) from audit_log where workspace_id = ${w.workspace.id} and activity = 'message.sent')::int as audit,
             (select count(*) from idempotency_keys where workspace_id = ${w.workspace.id})::int as keys`
  )[0];

describe("group commit of sends", () => {
  it("one statement answers each item as the single statement would: accepted, replayed key, gone recipient, unacknowledged policy, refused caller", async () => {
    const w = await seedWorkspace(stores());
    const stored = await item(w);
    expect((await messagesAcceptSend(db.sql, stored)).kind).toBe("accepted");
    const other = await seedWorkspace(stores());
    await db.sql`update workspaces set state = 'frozen' where id = ${other.workspace.id}`;
    const batch = [
      await item(w),
      await item(w, { key: null }),
      { ...(await item(w)), idempotency: stored.idempotency },
      await item(w, { recipientName: "someone-else" }),
      { ...(await item(w, { recipientName: "someone-else" })), idempotency: stored.idempotency },
      await item(other, { caller: other.sender.id }),
      await item(w, { caller: w.sender.id }),
    ];
    const before = await counts(w);
    const outcomes = await messagesAcceptSends(db.sql, batch);
    expect(outcomes.map((o) => o.kind)).toEqual(["accepted", "accepted", "idempotency_exists", "recipient_gone", "idempotency_exists", "caller_refused", "accepted"]);
    const first = outcomes[0];
    expect(first?.kind === "accepted" && first.message.id).toBe(batch[0]?.message.id);
    expect(await counts(w)).toEqual({ messages: (before?.messages ?? 0) + 3, audit: (before?.audit ?? 0) + 3, keys: (before?.keys ?? 0) + 2 });
    expect((await counts(other))?.messages).toBe(0);

    // A required policy the sender has not acknowledged: refused, nothing written.
    await db.sql`insert into policies (workspace_id, id, name, current_version, current_required, created_at) values (${w.workspace.id}, ${fixtureId()}, 'rules', 1, true, now())`;
    expect((await messagesAcceptSends(db.sql, [await item(w), await item(w, { key: null })])).map((o) => o.kind)).toEqual(["policy_unacknowledged", "policy_unacknowledged"]);
  });

  it("coalesces concurrent sends into fewer statements, each with its own message, audit row and key; a key sent twice at once is one message and one replay", async () => {
    const w = await seedWorkspace(stores());
    const batcher = new SendBatcher(db.sql);
    const store = new PgMessageStore(db.sql, batcher);
    const items = await Promise.all(Array.from({ length: 60 }, () => item(w)));
    const twice = await item(w);
    const results = await Promise.all([...items, twice, { ...(await item(w)), idempotency: twice.idempotency }].map((i) => store.acceptSend(i)));
    expect(results.slice(0, 60).every((r) => r.kind === "accepted")).toBe(true);
    expect(results.slice(60).map((r) => r.kind).sort()).toEqual(["accepted", "idempotency_exists"]);
    const replay = results.find((r) => r.kind === "idempotency_exists");
    expect(replay?.kind === "idempotency_exists" && replay.record.bodyText).toBe(JSON.stringify({ message_id: twice.message.id }));
    expect(await counts(w)).toEqual({ messages: 61, audit: 61, keys: 61 });
    expect(batcher.statements).toBeLessThan(62);
    expect(batcher.statements).toBeGreaterThan(0);
  });

  it("a send alone is written at once, by the single statement", async () => {
    const w = await seedWorkspace(stores());
    const batcher = new SendBatcher(db.sql);
    const store = new PgMessageStore(db.sql, batcher);
    expect((await store.acceptSend(await item(w))).kind).toBe("accepted");
    expect(batcher.statements).toBe(1);
  });

  it("a batch whose statement fails is retried send by send: only the bad send fails", async () => {
    const w = await seedWorkspace(stores());
    const batcher = new SendBatcher(db.sql);
    const store = new PgMessageStore(db.sql, batcher);
    const good = await Promise.all([item(w), item(w), item(w)]);
    // A message id already taken: its insert violates the primary key.
    const bad = { ...(await item(w)), message: { ...(await item(w)).message, id: (good[0]).message.id } };
    const settled = await Promise.allSettled([...good, bad].map((i) => store.acceptSend(i)));
    expect(settled.filter((s) => s.status === "fulfilled" && s.value.kind === "accepted")).toHaveLength(3);
    expect(settled.filter((s) => s.status === "rejected")).toHaveLength(1);
    expect((await counts(w))?.messages).toBe(3);
  });
});
