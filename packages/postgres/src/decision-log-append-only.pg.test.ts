import { fixtureId, makeBacklogItem, makeDecision, makeProject, seedWorkspace } from "@agentq/core/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgStores } from "./pg-stores.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// SESSION-STATE §4 held by the database itself, whatever the client: direct SQL cannot change
// or remove a decision-log entry or an amendment, and chains stay linear.
let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema({ max: 4 });
});
afterAll(async () => {
  await db.drop();
});

async function sqlState(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof postgres.PostgresError) return e.code;
    throw e;
  }
  return "ok";
}

describe("the decision log is append-only in PostgreSQL", () => {
  async function seeded() {
    const stores = createPgStores(db.sql);
    const w = await seedWorkspace(stores);
    const project = makeProject(w.workspace.id);
    await stores.projects.insert({ project });
    const entry = makeDecision({ workspaceId: w.workspace.id, projectId: project.id, number: 1 });
    await stores.decisions.append({ entry });
    const amendment = { workspaceId: w.workspace.id, id: fixtureId(), entryId: entry.id, source: { kind: "pr" as const, ref: "#1", url: null }, reason: "r", at: new Date(), by: { aiAccountId: w.sender.id, friendlyName: "s" } };
    await stores.decisions.appendAmendment({ amendment });
    return { w, project, entry, stores };
  }

  it("refuses UPDATE, DELETE and TRUNCATE of entries and amendments (SQLSTATE 55000)", async () => {
    const { entry } = await seeded();
    expect(await sqlState(db.sql`update decision_log_entries set decision_md = 'rewritten' where id = ${entry.id}`)).toBe("55000");
    expect(await sqlState(db.sql`update decision_log_entries set supersedes_id = null`)).toBe("55000");
    expect(await sqlState(db.sql`delete from decision_log_entries where id = ${entry.id}`)).toBe("55000");
    expect(await sqlState(db.sql`truncate decision_log_entries`)).toBe("55000");
    expect(await sqlState(db.sql`update decision_source_amendments set reason = 'x' where entry_id = ${entry.id}`)).toBe("55000");
    expect(await sqlState(db.sql`delete from decision_source_amendments where entry_id = ${entry.id}`)).toBe("55000");
    expect(await sqlState(db.sql`truncate decision_source_amendments`)).toBe("55000");
    const [row] = await db.sql<{ decision_md: string }[]>`select decision_md from decision_log_entries where id = ${entry.id}`;
    expect(row?.decision_md).toBe(entry.decisionMd);
  });

  it("lets only an erasure (SET LOCAL agentq.erasure = 'on') delete, and never update", async () => {
    const { entry } = await seeded();
    await db.sql.begin(async (tx) => {
      await tx`set local agentq.erasure = 'on'`;
      await tx`delete from decision_source_amendments where entry_id = ${entry.id}`;
      await tx`delete from decision_log_entries where id = ${entry.id}`;
    });
    expect(await db.sql`select 1 from decision_log_entries where id = ${entry.id}`).toHaveLength(0);
    const other = await seeded();
    const updated = db.sql.begin(async (tx) => {
      await tx`set local agentq.erasure = 'on'`;
      await tx`update decision_log_entries set title = 'x' where id = ${other.entry.id}`;
    });
    expect(await sqlState(updated)).toBe("55000");
  });

  it("keeps chains linear (a second successor is a unique violation) and corrections well-formed (CHECK)", async () => {
    const { w, project, entry } = await seeded();
    const insert = (id: string, number: number, kind: string, supersedes: string | null, root: string) => db.sql`
      insert into decision_log_entries (workspace_id, id, project_id, number, kind, title, context_md, decision_md, rationale_md, alternatives, consequences, tags, files,
        author_account_id, author_name, decided_at, recorded_at, supersedes_id, chain_root_id, source)
      values (${w.workspace.id}, ${id}, ${project.id}, ${number}, ${kind}, 't', '', 'd', '', '[]', '{"good":[],"bad":[]}', '{}', '{}', 'a', 'a', now(), now(), ${supersedes}, ${root}, '{"kind":"manual","ref":"x","url":null}')`;
    expect(await sqlState(insert(fixtureId(), 2, "correction", entry.id, entry.id))).toBe("ok");
    expect(await sqlState(insert(fixtureId(), 3, "correction", entry.id, entry.id))).toBe("23505");
    expect(await sqlState(insert(fixtureId(), 4, "correction", null, entry.id))).toBe("23514");
    const id = fixtureId();
    expect(await sqlState(insert(id, 5, "decision", entry.id, entry.id))).toBe("23514");
    expect(await sqlState(insert(fixtureId(), 1, "decision", null, "x"))).toBe("23514");
  });

  it("keeps one default project per workspace and never an archived default (constraints)", async () => {
    const { w, project } = await seeded();
    const p2 = makeProject(w.workspace.id, { isDefault: true });
    await createPgStores(db.sql).projects.insert({ project: p2 });
    expect(await sqlState(db.sql`update projects set is_default = true where id = ${project.id}`)).toBe("23505");
    expect(await sqlState(db.sql`update projects set state = 'archived', archived_at = now() where id = ${p2.id}`)).toBe("23514");
  });
});

describe("backlog terminal statuses are absorbing in PostgreSQL", () => {
  it("refuses moving a resolved or dismissed item to another status by direct SQL (trigger, 55000); CHECKs demand evidence and reasons (23514)", async () => {
    const stores = createPgStores(db.sql);
    const w = await seedWorkspace(stores);
    const project = makeProject(w.workspace.id);
    await stores.projects.insert({ project });
    const at = { workspaceId: w.workspace.id, projectId: project.id };
    const resolved = makeBacklogItem({ ...at, number: 1 }, { status: "resolved", resolvedAt: new Date(), closing: { prUrl: null, commitSha: "abc1234", notesMd: [], reason: null } });
    const dismissed = makeBacklogItem({ ...at, number: 2 }, { status: "dismissed", dismissedAt: new Date(), closing: { prUrl: null, commitSha: null, notesMd: [], reason: "dup" } });
    const open = makeBacklogItem({ ...at, number: 3 }, { status: "open" });
    for (const item of [resolved, dismissed, open]) await stores.backlog.insert({ item });
    expect(await sqlState(db.sql`update backlog_items set status = 'open', resolved_at = null where id = ${resolved.id}`)).toBe("55000");
    expect(await sqlState(db.sql`update backlog_items set status = 'resolved', dismissed_at = null, resolved_at = now(), closing_notes = '["x"]' where id = ${dismissed.id}`)).toBe("55000");
    expect(await sqlState(db.sql`update backlog_items set closing_notes = '["later note"]' where id = ${resolved.id}`)).toBe("ok");
    expect(await sqlState(db.sql`update backlog_items set status = 'resolved', resolved_at = now() where id = ${open.id}`)).toBe("23514");
    expect(await sqlState(db.sql`update backlog_items set status = 'dismissed', dismissed_at = now() where id = ${open.id}`)).toBe("23514");
    expect(await sqlState(db.sql`update backlog_items set status = 'in_progress' where id = ${open.id}`)).toBe("23514");
    expect(await sqlState(db.sql`update backlog_items set priority = 5 where id = ${open.id}`)).toBe("23514");
    const [row] = await db.sql<{ status: string }[]>`select status from backlog_items where id = ${resolved.id}`;
    expect(row?.status).toBe("resolved");
  });
});
