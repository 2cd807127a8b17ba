import { TEST_SECRETS, callOperation, describeLearningStoresContract, describeSessionStateStoresContract, describeSessionStateTables, outcomeOf, seedPrincipal, seedTestWorkspace } from "@agentq/core/testing";
import { createPgDeps } from "./pg-deps.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";
import { createPgMessagingHarness } from "./testing/pg-messaging-harness.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// The session-state store contract (the same suite the in-memory stores pass) on PostgreSQL.
let db: TestSchema;
let notifier: PgWakeupNotifier;
beforeAll(async () => {
  db = await createTestSchema({ max: 10 });
  notifier = new PgWakeupNotifier(db.sql);
});
afterAll(async () => {
  await notifier.close();
  await db.drop();
});

describeSessionStateStoresContract(async () => createPgMessagingHarness(db.sql, notifier));
describeLearningStoresContract(async () => createPgMessagingHarness(db.sql, notifier));
describeSessionStateTables("PostgreSQL", async (clock) => createPgDeps({ sql: db.sql, secrets: TEST_SECRETS, notifier, clock }));

// Real concurrency through the operations (two connections, one transaction each): the
// compare-and-set writes decide one winner; the loser reads again and is refused by the rules.
describe("concurrent session-state writes on PostgreSQL", () => {
  async function setup() {
    const deps = createPgDeps({ sql: db.sql, secrets: TEST_SECRETS, notifier });
    const ws = await seedTestWorkspace(deps.stores);
    const [a, b] = [await seedPrincipal(deps.stores, ws), await seedPrincipal(deps.stores, ws)];
    await callOperation(deps, a, "create_project", { name: "Race" });
    return { deps, a, b };
  }

  it("two agents take one open item at once: one gets it, the other 409 already_assigned", async () => {
    const { deps, a, b } = await setup();
    const item = (await callOperation(deps, a, "create_backlog_item", { title: "Contested", skip_triage: true })).body as { id: string };
    const outcomes = await Promise.all([a, b].map((who) => outcomeOf(callOperation(deps, who, "assign_backlog_item", { backlog_item_id: item.id }))));
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 409]);
    expect(outcomes.find((o) => o.status === 409)).toMatchObject({ code: "SVC_RESOURCE_CONFLICT" });
    const stored = await deps.stores.backlog.find({ workspaceId: a.workspace.id, id: item.id });
    expect(stored?.version).toBe(2);
  });

  it("resolving and dismissing one item at once: exactly one outcome sticks", async () => {
    const { deps, a, b } = await setup();
    const item = (await callOperation(deps, a, "create_backlog_item", { title: "Closed twice" })).body as { id: string };
    const outcomes = await Promise.all([
      outcomeOf(callOperation(deps, a, "close_backlog_item", { backlog_item_id: item.id, outcome: "resolved", commit_sha: "abcdef1" })),
      outcomeOf(callOperation(deps, b, "close_backlog_item", { backlog_item_id: item.id, outcome: "dismissed", reason: "obsolete" })),
    ]);
    expect(outcomes.map((o) => o.status).sort()).toEqual([200, 409]);
    const stored = await deps.stores.backlog.find({ workspaceId: a.workspace.id, id: item.id });
    expect(stored?.status).toBe(outcomes[0]?.status === 200 ? "resolved" : "dismissed");
  });

  it("two continuations of one session at once: one 201, the other 409; one successor exists", async () => {
    const { deps, a, b } = await setup();
    const started = (await callOperation(deps, a, "start_build_session", { title: "Once" })).body as { session: { id: string } };
    const outcomes = await Promise.all([a, b].map((who) => outcomeOf(callOperation(deps, who, "continue_build_session", { session_id: started.session.id }))));
    expect(outcomes.map((o) => o.status).sort()).toEqual([201, 409]);
    const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from build_sessions where previous_session_id = ${started.session.id}`;
    expect(row?.n).toBe(1);
  });
});
