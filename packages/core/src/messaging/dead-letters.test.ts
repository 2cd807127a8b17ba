import { describe, expect, it } from "vitest";
import { isDomainError, type ErrorCode } from "../errors.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext } from "../testing/principal-fixtures.ts";
import { listDeadLetters, purgeDeadLetter, releaseDeadLetter } from "./dead-letters.ts";
import { expireDueMessages } from "./expire-due-messages.ts";
import { getMessage } from "./get-message.ts";

async function codeOf(p: Promise<unknown>): Promise<ErrorCode> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  throw new Error("expected a DomainError");
}

async function deadLetteredScenario() {
  const s = await createMessagingScenario({ maxDeliveries: 1 });
  const id = await s.send();
  await s.claim({ visibility_timeout: "PT10S" });
  s.world.clock.advance(10_000);
  expect(await s.claim()).toEqual([]);
  return { s, id };
}

describe("dead letters and the expiry sweep", () => {
  it("lists, releases (back to pending, count reset) and purges dead-lettered messages, each audited", async () => {
    const { s, id } = await deadLetteredScenario();
    const admin = callContext(s.admin);
    const list = await listDeadLetters(s.world.deps, admin, {});
    expect(list).toEqual({ items: [{ envelope: (expect.objectContaining({ message_id: id, delivery_count: 1 }) as unknown), state: "dead_lettered", dead_lettered_at: s.world.clock.now().toISOString() }], next_cursor: null });
    const released = await releaseDeadLetter(s.world.deps, admin, { message_id: id });
    expect(released).toEqual({ status: 200, body: { message_id: id, state: "pending", available_at: s.world.clock.now().toISOString() } });
    expect(await codeOf(releaseDeadLetter(s.world.deps, admin, { message_id: id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(purgeDeadLetter(s.world.deps, admin, { message_id: id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    const [again] = await s.claim({ visibility_timeout: "PT10S" });
    expect(again?.envelope.delivery_count).toBe(1);
    s.world.clock.advance(10_000);
    expect(await s.claim()).toEqual([]);
    const timelineBeforePurge = (await getMessage(s.world.deps, callContext(s.alice), { message_id: id })).timeline.map((t) => t.activity);
    expect(timelineBeforePurge).toEqual(["message.sent", "message.claimed", "message.dead_lettered", "message.released", "message.claimed", "message.dead_lettered"]);
    expect(await purgeDeadLetter(s.world.deps, admin, { message_id: id })).toEqual({ status: 200, body: { message_id: id, purged: true } });
    expect(await codeOf(getMessage(s.world.deps, callContext(s.alice), { message_id: id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    const rows = await s.world.deps.stores.audit.timeline({ workspaceId: s.alice.workspace.id, messageId: id });
    expect(rows.map((r) => r.activity).at(-1)).toBe("message.purged");
    expect(await codeOf(listDeadLetters(s.world.deps, admin, { limit: "x" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(releaseDeadLetter(s.world.deps, admin, { message_id: "nope" }))).toBe("SVC_RESOURCE_NOT_FOUND");
  });

  it("release under an Idempotency-Key replays its response; a refused release leaves the key unspent", async () => {
    const { s, id } = await deadLetteredScenario();
    const fp = requestFingerprint({ method: "POST", path: `/v1/dead-letters/${id}/release`, body: {} });
    const ctx = callContext(s.admin, { idempotencyKey: "rel-1", fingerprint: fp });
    const first = await releaseDeadLetter(s.world.deps, ctx, { message_id: id });
    expect(await releaseDeadLetter(s.world.deps, { ...ctx, requestId: "again" }, { message_id: id })).toEqual(first);
    expect(await codeOf(purgeDeadLetter(s.world.deps, callContext(s.admin, { idempotencyKey: "rel-1", fingerprint: "x" }), { message_id: id }))).toBe("SVC_IDEMPOTENCY_CONFLICT");
    const failing = callContext(s.admin, { idempotencyKey: "purge-1", fingerprint: "p" });
    expect(await codeOf(purgeDeadLetter(s.world.deps, failing, { message_id: id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await s.world.deps.stores.idempotency.find({ workspaceId: s.admin.workspace.id, accountId: s.admin.account.id, key: "purge-1" })).toBeNull();
  });

  it("the expiry sweep marks expired messages with an audit row and counts them", async () => {
    const s = await createMessagingScenario();
    const a = await s.send({ ttl: "PT1M" });
    await s.send({ ttl: "PT1M" });
    const kept = await s.send({ ttl: "PT2M" });
    s.world.clock.advance(60_000);
    expect(await expireDueMessages(s.world.deps)).toBe(2);
    expect(await expireDueMessages(s.world.deps)).toBe(0);
    const view = await getMessage(s.world.deps, callContext(s.bob), { message_id: a });
    expect(view.state).toBe("expired");
    expect(view.timeline.map((t) => [t.activity, t.actor_ai_account_id])).toEqual([["message.sent", s.alice.account.id], ["message.expired", null]]);
    expect((await getMessage(s.world.deps, callContext(s.bob), { message_id: kept })).state).toBe("pending");
  });
});
