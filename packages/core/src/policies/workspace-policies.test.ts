import { describe, expect, it } from "vitest";
import type { Principal } from "../access/model.ts";
import { sealAuditChains } from "../audit/seal-audit-chain.ts";
import { isDomainError } from "../errors.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { findOperation } from "../catalogue.ts";
import { executeOperation } from "../execution/execute.ts";
import type { OperationResult } from "../operation.ts";
import { fixtureId } from "../testing/access-fixtures.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext } from "../testing/principal-fixtures.ts";

async function call(deps: Parameters<typeof executeOperation>[0], who: Principal, name: string, input: Record<string, unknown>, key: string | null = fixtureId()): Promise<OperationResult> {
  const op = findOperation(name);
  if (!op) throw new Error(`no operation ${name}`);
  return executeOperation(deps, op, callContext(who, { idempotencyKey: op.idempotency === "none" ? null : key, fingerprint: requestFingerprint({ method: op.http.method, path: op.http.path, body: input }) }), input);
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  return "none";
}

const SEND = { envelope: { recipient: { friendly_name: "bob" }, template: "directive" }, payload: { directive_kind: "task", summary: "s", instructions: "i" } };

describe("policies", () => {
  it("publishes versions under one id; get_policies shows the current one and the caller's acknowledgement", async () => {
    const s = await createMessagingScenario();
    const v1 = (await call(s.world.deps, s.admin, "publish_policy", { name: "acceptable-use", body: "Be kind.", required: true })).body as { id: string; version: number; required: boolean };
    expect(v1).toMatchObject({ version: 1, required: true });
    const v2 = (await call(s.world.deps, s.admin, "publish_policy", { name: "acceptable-use", body: "Be kinder." })).body as { id: string; version: number };
    expect(v2).toMatchObject({ id: v1.id, version: 2 });
    const list = (await call(s.world.deps, s.alice, "get_policies", {})).body as { items: { id: string; version: number; acknowledged: boolean; required: boolean }[] };
    expect(list.items).toEqual([expect.objectContaining({ id: v1.id, version: 2, required: false, acknowledged: false })]);
    // An administrative credential reads policies without the get_policies scope.
    expect(((await call(s.world.deps, s.admin, "get_policies", {})).body as { items: unknown[] }).items).toHaveLength(1);
  });

  it("lists who acknowledged which version, marking the current one; administrative only; another id is 404", async () => {
    const s = await createMessagingScenario();
    const v1 = (await call(s.world.deps, s.admin, "publish_policy", { name: "conduct", body: "Be kind.", required: true })).body as { id: string };
    await call(s.world.deps, s.alice, "acknowledge_policies", { policy_id: v1.id, version: 1 });
    await call(s.world.deps, s.admin, "publish_policy", { name: "conduct", body: "Be kinder.", required: true });
    await call(s.world.deps, s.bob, "acknowledge_policies", { policy_id: v1.id, version: 2 });
    const acks = (await call(s.world.deps, s.admin, "list_policy_acknowledgements", { policy_id: v1.id })).body as { policy: { version: number }; items: { friendly_name: string; version: number; current: boolean }[]; next_cursor: string | null };
    expect(acks.policy.version).toBe(2);
    expect(acks.items.map((a) => [a.friendly_name, a.version, a.current]).sort()).toEqual([["alice", 1, false], ["bob", 2, true]]);
    expect(acks.next_cursor).toBeNull();
    const first = (await call(s.world.deps, s.admin, "list_policy_acknowledgements", { policy_id: v1.id, limit: 1 })).body as { items: unknown[]; next_cursor: string };
    expect(first.items).toHaveLength(1);
    expect(((await call(s.world.deps, s.admin, "list_policy_acknowledgements", { policy_id: v1.id, limit: 1, cursor: first.next_cursor })).body as { items: unknown[] }).items).toHaveLength(1);
    expect(await codeOf(call(s.world.deps, s.alice, "list_policy_acknowledgements", { policy_id: v1.id }))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await codeOf(call(s.world.deps, s.admin, "list_policy_acknowledgements", { policy_id: fixtureId() }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(call(s.world.deps, s.admin, "list_policy_acknowledgements", { policy_id: "nope" }))).toBe("SVC_RESOURCE_NOT_FOUND");
  });

  it("refuses publishing to operational credentials and without an Idempotency-Key; refuses bad names", async () => {
    const s = await createMessagingScenario();
    expect(await codeOf(call(s.world.deps, s.alice, "publish_policy", { name: "p", body: "b" }))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await codeOf(call(s.world.deps, s.admin, "publish_policy", { name: "p", body: "b" }, null))).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    expect(await codeOf(call(s.world.deps, s.admin, "publish_policy", { name: "Not Valid", body: "b" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(call(s.world.deps, s.admin, "acknowledge_policies", { policy_id: fixtureId(), version: 1 }))).toBe("SVC_SCOPE_INSUFFICIENT");
  });

  it("refuses a send until the required policy's current version is acknowledged, accepts it right after, and audits all of it in a chain that verifies", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const policy = (await call(deps, s.admin, "publish_policy", { name: "acceptable-use", body: "Be kind.", required: true })).body as { id: string };
    expect(await codeOf(call(deps, s.alice, "send", SEND))).toBe("SVC_POLICY_NOT_ACKNOWLEDGED");
    expect(await codeOf(call(deps, s.alice, "validate", SEND))).toBe("SVC_POLICY_NOT_ACKNOWLEDGED");

    await call(deps, s.admin, "publish_policy", { name: "acceptable-use", body: "Be kinder.", required: true });
    expect(await codeOf(call(deps, s.alice, "acknowledge_policies", { policy_id: policy.id, version: 1 }))).toBe("SVC_POLICY_VERSION_STALE");
    expect(await codeOf(call(deps, s.alice, "acknowledge_policies", { policy_id: policy.id, version: 3 }))).toBe("SVC_RESOURCE_NOT_FOUND");
    const ack = await call(deps, s.alice, "acknowledge_policies", { policy_id: policy.id, version: 2 });
    expect(ack.body).toMatchObject({ policy_id: policy.id, version: 2 });
    const sent = await call(deps, s.alice, "send", SEND);
    expect(sent.status).toBe(201);
    // bob never acknowledged: still refused.
    expect(await codeOf(call(deps, s.bob, "send", { ...SEND, envelope: { ...SEND.envelope, recipient: { friendly_name: "alice" } } }))).toBe("SVC_POLICY_NOT_ACKNOWLEDGED");

    await sealAuditChains(deps);
    const log = (await call(deps, s.admin, "browse_audit_log", { limit: 100 })).body as { items: { activity: string; details: Record<string, unknown> }[] };
    const activities = log.items.map((r) => r.activity).reverse();
    expect(activities).toEqual(["policy.published", "message.send_refused", "policy.published", "policy.acknowledge_refused", "policy.acknowledge_refused", "policy.acknowledged", "message.sent", "message.send_refused"]);
    expect(log.items.find((r) => r.activity === "message.send_refused")?.details).toMatchObject({ code: "SVC_POLICY_NOT_ACKNOWLEDGED" });
    expect(log.items.find((r) => r.activity === "policy.acknowledge_refused" && r.details["code"] === "SVC_POLICY_VERSION_STALE")).toBeDefined();
    const verification = (await call(deps, s.admin, "verify_audit_log", {})).body as { verified: boolean; checked: number; head: { seq: number } };
    expect(verification).toMatchObject({ verified: true, checked: 8, head: { seq: 8 }, first_bad_row: null });
  });

  it("replays an acknowledgement by its Idempotency-Key and a non-required policy does not gate sends", async () => {
    const s = await createMessagingScenario();
    const policy = (await call(s.world.deps, s.admin, "publish_policy", { name: "style", body: "Short.", required: false })).body as { id: string };
    expect((await call(s.world.deps, s.alice, "send", SEND)).status).toBe(201);
    const key = fixtureId();
    const first = await call(s.world.deps, s.alice, "acknowledge_policies", { policy_id: policy.id, version: 1 }, key);
    const again = await call(s.world.deps, s.alice, "acknowledge_policies", { policy_id: policy.id, version: 1 }, key);
    expect(again.body).toEqual(first.body);
    expect(await codeOf(call(s.world.deps, s.alice, "acknowledge_policies", { policy_id: policy.id, version: 2 }, key))).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });
});
