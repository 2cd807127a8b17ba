import { beforeEach, describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { fixtureId } from "../testing/access-fixtures.ts";
import { createMessagingScenario, type MessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext } from "../testing/principal-fixtures.ts";
import { ackMessage } from "./ack-message.ts";
import { ACK_BATCH_MAX_ITEMS, ackMessages } from "./ack-messages.ts";

describe("ack_batch use case", () => {
  let s: MessagingScenario;
  let held: { id: string; lease: string }[];

  beforeEach(async () => {
    s = await createMessagingScenario();
    for (let i = 0; i < 3; i++) await s.send();
    held = (await s.claim({ max: 3, visibility_timeout: "PT60S" })).map((item) => ({ id: item.envelope.message_id, lease: item.lease.lease_id }));
    expect(held).toHaveLength(3);
  });

  const bob = () => callContext(s.bob);
  const batch = (items: unknown[]) => ackMessages(s.world.deps, bob(), { items: items as never });

  it("acknowledges every item: each 200 with acknowledged_at, the same answers on a repeat, one audit row each", async () => {
    const first = await batch(held.map((h) => ({ message_id: h.id, lease_id: h.lease, outcome_summary: "done" })));
    expect(first.results.map((r) => [r.message_id, r.status])).toEqual(held.map((h) => [h.id, 200]));
    for (const r of first.results) {
      expect(r).toMatchObject({ state: "acknowledged" });
      expect(typeof (r as { acknowledged_at?: unknown }).acknowledged_at).toBe("string");
    }
    s.world.clock.advance(1_000);
    const again = await batch(held.map((h) => ({ message_id: h.id, lease_id: h.lease })));
    expect(again).toEqual(first);
    // The single ack agrees with the batch.
    const single = await ackMessage(s.world.deps, bob(), { message_id: held[0]?.id as string, lease_id: held[0]?.lease as string });
    expect(single).toEqual({ message_id: held[0]?.id, state: "acknowledged", acknowledged_at: (first.results[0] as { acknowledged_at: string }).acknowledged_at });
    for (const h of held) {
      const timeline = await s.world.deps.stores.audit.timeline({ workspaceId: s.bob.workspace.id, messageId: h.id });
      expect(timeline.filter((e) => e.activity === "message.acknowledged")).toHaveLength(1);
    }
  });

  it("answers each item with its own code; the valid items are acknowledged", async () => {
    const [a, b, c] = held as { id: string; lease: string }[];
    const results = (
      await batch([
        { message_id: a?.id, lease_id: a?.lease },
        { message_id: b?.id, lease_id: "not-the-lease" },
        { message_id: "not-a-ulid", lease_id: "x" },
        { message_id: fixtureId(), lease_id: "x" },
        { message_id: c?.id, lease_id: "" },
        { message_id: a?.id, lease_id: a?.lease },
        { message_id: c?.id, lease_id: c?.lease, outcome_summary: "x".repeat(2001) },
      ])
    ).results;
    expect(results.map((r) => [r.status, "error" in r ? r.error.code : "ok"])).toEqual([
      [200, "ok"],
      [409, "SVC_LEASE_NOT_HELD"],
      [404, "SVC_RESOURCE_NOT_FOUND"],
      [404, "SVC_RESOURCE_NOT_FOUND"],
      [400, "SVC_MALFORMED_REQUEST"],
      [400, "SVC_MALFORMED_REQUEST"],
      [400, "SVC_MALFORMED_REQUEST"],
    ]);
    expect(results[4]).toMatchObject({ error: { details: { field: "lease_id" } } });
    expect(results[5]).toMatchObject({ message_id: a?.id, error: { details: { field: "message_id" } } });
    expect(results[6]).toMatchObject({ error: { details: { field: "outcome_summary" } } });
    // b and c are still held under their leases.
    const later = await batch([{ message_id: b?.id, lease_id: b?.lease }, { message_id: c?.id, lease_id: c?.lease }]);
    expect(later.results.map((r) => r.status)).toEqual([200, 200]);
  });

  it("refuses an ack of a lease that ran out with SVC_LEASE_EXPIRED for that item", async () => {
    s.world.clock.advance(61_000);
    const { results } = await batch([{ message_id: held[0]?.id, lease_id: held[0]?.lease }]);
    expect(results[0]).toMatchObject({ status: 409, error: { code: "SVC_LEASE_EXPIRED" } });
  });

  it("refuses an empty batch and one of more than 100 items as a whole (SVC_MALFORMED_REQUEST, field items)", async () => {
    for (const items of [[], Array.from({ length: ACK_BATCH_MAX_ITEMS + 1 }, () => ({ message_id: held[0]?.id, lease_id: held[0]?.lease }))]) {
      try {
        await batch(items);
        throw new Error("expected a refusal");
      } catch (e) {
        expect(isDomainError(e) && e.code).toBe("SVC_MALFORMED_REQUEST");
        expect(isDomainError(e) && e.details).toMatchObject({ field: "items" });
      }
    }
  });

  it("another account cannot acknowledge bob's messages (404 per item)", async () => {
    const { results } = await ackMessages(s.world.deps, callContext(s.alice), { items: held.map((h) => ({ message_id: h.id, lease_id: h.lease })) });
    expect(results.map((r) => r.status)).toEqual([404, 404, 404]);
    const mine = await batch(held.map((h) => ({ message_id: h.id, lease_id: h.lease })));
    expect(mine.results.map((r) => r.status)).toEqual([200, 200, 200]);
  });
});
