import { describe, expect, it } from "vitest";
import { expireDueMessages } from "../messaging/expire-due-messages.ts";
import { OPERATIONS } from "../catalogue.ts";
import { SESSION_STATE_OPERATIONS } from "../session-state/operations.ts";
import { NOTICE_OPERATIONS } from "../notices/operations.ts";
import { callOperation, sendBody } from "../testing/guard-rail-calls.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { connectForTest } from "../testing/oauth-flow.ts";
import { sealAuditChains } from "./seal-audit-chain.ts";
import { verifyWorkspaceChain } from "./verify-workspace-chain.ts";

// Every mutation of the specification writes its audit row. Webhook mutations are covered by the
// webhook tests, session-state mutations by session-state/projects-and-decision-log.test.ts, notice
// steps by notices/notices.test.ts (audited in the affected workspace); every other mutating
// operation of the catalogue must appear below.
const SESSION_STATE_NAMES: ReadonlySet<string> = new Set([...SESSION_STATE_OPERATIONS, ...NOTICE_OPERATIONS].map((op) => op.name));
const COVERED: Readonly<Record<string, string>> = {
  send: "message.sent",
  get_pending: "message.claimed",
  extend_lease: "message.lease_extended",
  nack: "message.nacked",
  ack: "message.acknowledged",
  ack_batch: "message.acknowledged",
  hand_off: "message.handed_off",
  approve_message: "message.approved",
  reject_message: "message.rejected",
  release_dead_letter: "message.released",
  purge_dead_letter: "message.purged",
  create_ai_account: "ai_account.created",
  rename_ai_account: "ai_account.renamed",
  freeze_ai_account: "ai_account.frozen",
  unfreeze_ai_account: "ai_account.unfrozen",
  revoke_ai_account: "ai_account.revoked",
  issue_credential: "credential.issued",
  rotate_credential: "credential.rotated",
  revoke_credential: "credential.revoked",
  publish_policy: "policy.published",
  acknowledge_policies: "policy.acknowledged",
  disconnect_connection: "oauth_grant.revoked",
  get_message_payload: "message.payload_viewed",
};

const activities0 = (rows: { activity: string }[]) => rows.map((r) => r.activity);

describe("audit coverage", () => {
  it("names every non-webhook mutation of the catalogue", () => {
    // The people's operations (a person's session, or the anonymous routes of a sign-in: not MCP tools) audit as
    // people.test.ts, password-reset.test.ts, closing.pg.test.ts and people-admin.pg.test.ts check (person.invited, person.removed, ...).
    const peoples = (op: (typeof OPERATIONS)[number]) => op.surfaces !== undefined && !op.surfaces.includes("mcp");
    const mutations = OPERATIONS.filter((op) => op.mutates && !peoples(op) && !op.name.includes("webhook") && !SESSION_STATE_NAMES.has(op.name)).map((op) => op.name);
    expect(Object.keys(COVERED).sort()).toEqual(mutations.sort());
  });

  it("every mutation writes its audit row, and the sealed chain verifies", async () => {
    const s = await createMessagingScenario({ maxDeliveries: 1 });
    const { deps } = s.world;
    const written = new Set<string>();
    const run = async (who: typeof s.alice, name: string, input: Record<string, unknown>) => {
      const before = (await deps.stores.audit.list({ workspaceId: s.alice.workspace.id, activity: COVERED[name] ?? null, messageId: null, includeOperatorSignificant: true, after: null, limit: 1000 })).length;
      const result = await callOperation(deps, who, name, input);
      const after = (await deps.stores.audit.list({ workspaceId: s.alice.workspace.id, activity: COVERED[name] ?? null, messageId: null, includeOperatorSignificant: true, after: null, limit: 1000 })).length;
      if (after > before) written.add(name);
      return result.body as Record<string, unknown> & { items?: { lease: { lease_id: string } }[]; credential?: { id: string } };
    };

    const m1 = (await run(s.alice, "send", sendBody())).message_id as string;
    let lease = ((await run(s.bob, "get_pending", {})).items as { lease: { lease_id: string } }[])[0]?.lease.lease_id;
    await run(s.bob, "extend_lease", { message_id: m1, lease_id: lease, visibility_timeout: "PT600S" });
    await run(s.bob, "ack", { message_id: m1, lease_id: lease });
    const m3 = (await callOperation(deps, s.alice, "send", sendBody())).body as { message_id: string };
    lease = ((await callOperation(deps, s.bob, "get_pending", {})).body as { items: { lease: { lease_id: string } }[] }).items[0]?.lease.lease_id;
    await run(s.bob, "ack_batch", { items: [{ message_id: m3.message_id, lease_id: lease }] });
    const m4 = (await callOperation(deps, s.alice, "send", sendBody())).body as { message_id: string };
    lease = ((await callOperation(deps, s.bob, "get_pending", {})).body as { items: { lease: { lease_id: string } }[] }).items[0]?.lease.lease_id;
    await run(s.bob, "hand_off", { message_id: m4.message_id, lease_id: lease, to: { friendly_name: s.alice.account.friendlyName } });

    const m2 = (await callOperation(deps, s.alice, "send", sendBody())).body as { message_id: string };
    lease = ((await callOperation(deps, s.bob, "get_pending", {})).body as { items: { lease: { lease_id: string } }[] }).items[0]?.lease.lease_id;
    await run(s.bob, "nack", { message_id: m2.message_id, lease_id: lease });
    await callOperation(deps, s.bob, "get_pending", {}); // past max_deliveries 1: dead-lettered
    await run(s.admin, "release_dead_letter", { message_id: m2.message_id });
    lease = ((await callOperation(deps, s.bob, "get_pending", {})).body as { items: { lease: { lease_id: string } }[] }).items[0]?.lease.lease_id;
    s.world.clock.advance(31_000);
    await callOperation(deps, s.bob, "nack", { message_id: m2.message_id, lease_id: lease });
    await callOperation(deps, s.bob, "get_pending", {});
    await run(s.admin, "purge_dead_letter", { message_id: m2.message_id });
    await callOperation(deps, s.alice, "send", { ...sendBody(), envelope: { ...(sendBody().envelope as object), ttl: "PT1M" } });
    s.world.clock.advance(61_000);
    expect(await expireDueMessages(deps)).toBeGreaterThan(0);

    // Held for approval (DESIGN §2c): one approved, one rejected.
    expect((await callOperation(deps, s.admin, "publish_policy", { name: "hold-alice", body: "A person decides.", kind: "approval", senders: ["alice"] })).status).toBe(201);
    const held = [(await callOperation(deps, s.alice, "send", sendBody())).body, (await callOperation(deps, s.alice, "send", sendBody())).body] as { message_id: string; state: string }[];
    expect(held.map((m) => m.state)).toEqual(["held_for_approval", "held_for_approval"]);
    await run(s.admin, "approve_message", { message_id: held[0]?.message_id });
    await run(s.admin, "reject_message", { message_id: held[1]?.message_id, reason: "no" });
    await callOperation(deps, s.admin, "publish_policy", { name: "hold-alice", body: "No more holding." });
    expect(activities0(await deps.stores.audit.timeline({ workspaceId: s.alice.workspace.id, messageId: held[1]?.message_id ?? "" }))).toEqual(["message.sent", "message.held_for_approval", "message.rejected"]);

    const carol = (await run(s.admin, "create_ai_account", { friendly_name: "carol" })).id as string;
    await run(s.admin, "rename_ai_account", { ai_account_id: carol, friendly_name: "caroline" });
    await run(s.admin, "freeze_ai_account", { ai_account_id: carol });
    await run(s.admin, "unfreeze_ai_account", { ai_account_id: carol });
    const cred = ((await run(s.admin, "issue_credential", { ai_account_id: carol, tier: "operational", scopes: ["send"], name: "carol-ci" })).credential as { id: string }).id;
    const rotated = ((await run(s.admin, "rotate_credential", { credential_id: cred, overlap_window: "PT1M" })).credential as { id: string }).id;
    await run(s.admin, "revoke_credential", { credential_id: rotated });
    await run(s.admin, "revoke_ai_account", { ai_account_id: carol });
    const policy = (await run(s.admin, "publish_policy", { name: "conduct", body: "Be kind.", required: true })).id as string;
    await run(s.alice, "acknowledge_policies", { policy_id: policy, version: 1 });
    const connection = await connectForTest(deps, { workspaceId: s.alice.workspace.id, aiAccountId: s.alice.account.id });
    await run(s.admin, "disconnect_connection", { connection_id: connection.grantId });
    const toAdmin = (await callOperation(deps, s.alice, "send", { ...sendBody(), envelope: { ...(sendBody().envelope as object), recipient: { friendly_name: s.admin.account.friendlyName } } })).body as { message_id: string };
    await run(s.admin, "get_message_payload", { message_id: toAdmin.message_id });

    expect([...written].sort()).toEqual(Object.keys(COVERED).sort());
    const activities = new Set((await deps.stores.audit.list({ workspaceId: s.alice.workspace.id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 1000 })).map((r) => r.activity));
    expect(activities).toContain("message.dead_lettered");
    expect(activities).toContain("message.expired");
    await sealAuditChains(deps);
    expect(await verifyWorkspaceChain(deps.stores.audit, s.alice.workspace.id)).toMatchObject({ verified: true, firstBadRow: null });
  });
});
