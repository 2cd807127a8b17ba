import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fixtureId, makeAuditEntry, makeNewMessage, seedWorkspace } from "@agentq/core/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgStores } from "./pg-stores.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// Ready to distribute (DESIGN §5, docs/scaling.md): read from PostgreSQL's own catalog, not from
// the drizzle schema, so a hand-written migration cannot slip past. Every table is named in
// docs/scaling.md's table with its Citus type; a distributed table leads every primary key and
// unique index with its distribution column; no foreign key crosses workspaces (there are none
// at all today); and the hot statements (send, claim, ack, nack, extend) each name
// `workspace_id`, so that Citus routes them to one shard.

const SCALING_DOC = fileURLToPath(new URL("../../../docs/scaling.md", import.meta.url));

/** The docs' table rows: each backticked table name in the first column -> its Citus type and distribution column. */
function documentedTables(): Map<string, { type: string; column: string }> {
  const tables = new Map<string, { type: string; column: string }>();
  for (const line of readFileSync(SCALING_DOC, "utf8").split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5 || !cells[1]?.startsWith("`")) continue;
    const type = cells[2] ?? "";
    const column = /`([a-z_]+)`/.exec(cells[3] ?? "")?.[1] ?? "";
    for (const m of (cells[1] ?? "").matchAll(/`([a-z_]+)`/g)) tables.set(m[1] as string, { type, column });
  }
  return tables;
}

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema({ max: 2 });
});
afterAll(async () => {
  await db.drop();
});

describe("the schema can be distributed by workspace with Citus (docs/scaling.md)", () => {
  it("names every table of the schema in docs/scaling.md with its Citus type", async () => {
    const documented = documentedTables();
    const rows = await db.sql<{ relname: string }[]>`
      select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${db.schema} and c.relkind in ('r', 'p') and c.relname <> '__drizzle_migrations' order by 1`;
    const missing = rows.map((r) => r.relname).filter((t) => !documented.has(t));
    expect(missing).toEqual([]);
    for (const [table, { type }] of documented) expect([table, ["distributed", "reference", "local (coordinator)"].includes(type)]).toEqual([table, true]);
  });

  it("leads every primary key and unique index of a distributed table with workspace_id (or holds its distribution column)", async () => {
    const documented = documentedTables();
    const rows = await db.sql<{ tbl: string; idx: string; cols: string[] }[]>`
      select t.relname as tbl, i.relname as idx,
        array(select a.attname from unnest(ix.indkey::int2[]) with ordinality k(attnum, ord) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.ord) as cols
      from pg_index ix
      join pg_class i on i.oid = ix.indexrelid
      join pg_class t on t.oid = ix.indrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${db.schema} and (ix.indisunique or ix.indisprimary) and t.relname <> '__drizzle_migrations'`;
    expect(rows.length).toBeGreaterThan(20);
    const wrong = rows.filter((r) => {
      const doc = documented.get(r.tbl);
      // Citus needs the distribution column in every unique index; a workspace's tables lead with it.
      if (doc?.type !== "distributed") return false;
      return doc.column === "workspace_id" ? r.cols[0] !== doc.column : !r.cols.includes(doc.column);
    });
    expect(wrong).toEqual([]);
  });

  it("has no foreign key between distributed tables that leaves out the distribution column", async () => {
    const documented = documentedTables();
    const rows = await db.sql<{ tbl: string; ref: string; cols: string[] }[]>`
      select t.relname as tbl, rt.relname as ref,
        array(select a.attname from pg_attribute a where a.attrelid = t.oid and a.attnum = any (con.conkey)) as cols
      from pg_constraint con
      join pg_class t on t.oid = con.conrelid
      join pg_class rt on rt.oid = con.confrelid
      join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${db.schema} and con.contype = 'f'`;
    const crossing = rows.filter((r) => documented.get(r.tbl)?.type === "distributed" && documented.get(r.ref)?.type === "distributed" && !r.cols.includes(documented.get(r.tbl)?.column ?? ""));
    expect(crossing).toEqual([]);
  });

  it("scopes each hot statement (send, claim, ack, nack, extend) by workspace_id", async () => {
    const statements: string[] = [];
    const traced = postgres(db.url, { max: 1, onnotice: () => undefined, connection: { search_path: db.schema }, debug: (_c, query) => statements.push(query) });
    try {
      const stores = createPgStores(traced);
      const w = await seedWorkspace(stores);
      const now = await stores.messages.now();
      const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now }, {});
      const audit = (activity: string) => makeAuditEntry(w.workspace.id, { activity, messageId: message.id, subjectType: "message", subjectId: message.id, occurredAt: now, actorAccountId: w.recipient.id });
      const hot: Record<string, string[]> = {};
      const record = async (name: string, run: () => Promise<unknown>) => {
        const from = statements.length;
        await run();
        hot[name] = statements.slice(from);
      };

      await record("send", () => stores.messages.acceptSend({ message, audit: audit("message.sent"), idempotency: null }));
      const claimOnce = () => stores.messages.claimBatch({ workspaceId: w.workspace.id, recipientId: w.recipient.id, max: 1, visibilityTimeoutMs: 60_000, maxDeliveries: 10, auditIds: [fixtureId()], requestId: "r", credentialId: null });
      let leaseId = "";
      await record("claim", async () => {
        leaseId = (await claimOnce()).claimed[0]?.leaseId ?? "";
      });
      expect(leaseId).not.toBe("");
      const lease = { workspaceId: w.workspace.id, messageId: message.id, recipientId: w.recipient.id, leaseId };
      await record("extend", () => stores.messages.extendIfHeld({ ...lease, visibilityTimeoutMs: 60_000, minIntervalMs: 0, maxExtensions: 10, cumulativeCapMs: 3_600_000, audit: audit("message.lease_extended") }));
      await record("nack", () => stores.messages.nackIfHeld({ ...lease, redeliverAfterMs: 0, minIntervalMs: 0, audit: audit("message.nacked") }));
      const again = (await claimOnce()).claimed[0]?.leaseId ?? "";
      await record("ack", () => stores.messages.ackIfHeld({ ...lease, leaseId: again, outcomeSummary: null, audit: audit("message.acknowledged") }));

      for (const [name, sqls] of Object.entries(hot)) {
        const onTables = sqls.filter((q) => /\b(insert|update|delete|from)\b/i.test(q));
        expect([name, onTables.length > 0]).toEqual([name, true]);
        const unscoped = onTables.filter((q) => !/\bworkspace_id\b/.test(q));
        expect([name, unscoped]).toEqual([name, []]);
      }
    } finally {
      await traced.end({ timeout: 5 });
    }
  });
});
