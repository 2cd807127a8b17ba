import { beforeEach, describe, expect, it } from "vitest";
import type { DomainError} from "../errors.ts";
import { isDomainError, type ErrorCode } from "../errors.ts";
import { fixtureId } from "../testing/access-fixtures.ts";
import { createMessagingScenario, type MessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext } from "../testing/principal-fixtures.ts";
import { ackMessage } from "./ack-message.ts";
import { extendLease } from "./extend-lease.ts";
import { getMessage } from "./get-message.ts";
import { nackMessage } from "./nack-message.ts";

async function refusal(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e;
    throw e;
  }
  throw new Error("expected a DomainError");
}
const codeOf = async (p: Promise<unknown>): Promise<ErrorCode> => (await refusal(p)).code;

describe("ack, nack and extend_lease use cases", () => {
  let s: MessagingScenario;
  let id: string;
  let lease: string;

  beforeEach(async () => {
    s = await createMessagingScenario();
    id = await s.send();
    const [item] = await s.claim({ visibility_timeout: "PT60S" });
    lease = item?.lease.lease_id as string;
  });

  const bobCtx = () => callContext(s.bob);
  const ack = (over: Record<string, unknown> = {}) => ackMessage(s.world.deps, bobCtx(), { message_id: id, lease_id: lease, ...over });
  const nack = (over: Record<string, unknown> = {}) => nackMessage(s.world.deps, bobCtx(), { message_id: id, lease_id: lease, ...over });
  const extend = (over: Record<string, unknown> = {}) => extendLease(s.world.deps, bobCtx(), { message_id: id, lease_id: lease, visibility_timeout: "PT120S", ...over });

  it("ack: 200 acknowledged, the same 200 on a repeat with the same lease; the timeline records it", async () => {
    const first = await ack({ outcome_summary: "done" });
    expect(first).toEqual({ message_id: id, state: "acknowledged", acknowledged_at: s.world.clock.now().toISOString() });
    s.world.clock.advance(5000);
    expect(await ack()).toEqual(first);
    const view = await getMessage(s.world.deps, callContext(s.alice), { message_id: id });
    expect(view.state).toBe("acknowledged");
    expect(view.timeline.map((t) => t.activity)).toEqual(["message.sent", "message.claimed", "message.acknowledged"]);
    expect(view.timeline[2]).toMatchObject({ actor_ai_account_id: s.bob.account.id, details: { lease_id: lease, outcome_summary: "done" } });
  });

  it("ack refusals: not found, not the caller's, another lease, lease expired, expired, dead-lettered, bad input", async () => {
    expect(await codeOf(ack({ message_id: "not-a-ulid" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(ack({ message_id: fixtureId() }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(ackMessage(s.world.deps, callContext(s.alice), { message_id: id, lease_id: lease }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(ack({ lease_id: "other" }))).toBe("SVC_LEASE_NOT_HELD");
    expect(await codeOf(ack({ lease_id: "" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(ack({ outcome_summary: "x".repeat(2001) }))).toBe("SVC_MALFORMED_REQUEST");
    s.world.clock.advance(61_000);
    expect(await codeOf(ack())).toBe("SVC_LEASE_EXPIRED");
    expect(await s.claim({ visibility_timeout: "PT10S" })).toHaveLength(1);
    expect(await codeOf(ack())).toBe("SVC_LEASE_NOT_HELD");
  });

  it("ack of an expired message is 410 SVC_EXPIRED; of a dead-lettered one 409 SVC_DEAD_LETTERED", async () => {
    const shortLived = await s.send({ ttl: "PT30S", priority: "urgent" });
    const [item] = await s.claim({ visibility_timeout: "PT600S" });
    expect(item?.envelope.message_id).toBe(shortLived);
    s.world.clock.advance(31_000);
    const e = await refusal(ackMessage(s.world.deps, bobCtx(), { message_id: shortLived, lease_id: item?.lease.lease_id as string }));
    expect(e.code).toBe("SVC_EXPIRED");
    expect(e.status).toBe(410);

    const dl = await createMessagingScenario({ maxDeliveries: 1 });
    const dlId = await dl.send();
    const [held] = await dl.claim({ visibility_timeout: "PT10S" });
    dl.world.clock.advance(11_000);
    expect(await dl.claim()).toEqual([]);
    expect(await codeOf(ackMessage(dl.world.deps, callContext(dl.bob), { message_id: dlId, lease_id: held?.lease.lease_id as string }))).toBe("SVC_DEAD_LETTERED");
  });

  it("nack: 200 pending with available_at; one per 30 s (429 with Retry-After); redelivery must fall before expiry", async () => {
    expect(await codeOf(nack({ redeliver_after: "soon" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(nack({ reason: "x".repeat(1001) }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(nack({ redeliver_after: "P8D" }))).toBe("SVC_MALFORMED_REQUEST");
    const r = await nack({ redeliver_after: "PT10S", reason: "busy" });
    expect(r).toEqual({ message_id: id, state: "pending", available_at: new Date(s.world.clock.now().getTime() + 10_000).toISOString() });
    expect(await codeOf(nack())).toBe("SVC_LEASE_NOT_HELD");
    s.world.clock.advance(10_000);
    const [again] = await s.claim({ visibility_timeout: "PT60S" });
    lease = again?.lease.lease_id as string;
    const limited = await refusal(nack());
    expect(limited.code).toBe("SVC_NACK_RATE_LIMITED");
    expect(limited.status).toBe(429);
    expect(limited.retryAfterSeconds).toBe(20);
    s.world.clock.advance(20_000);
    expect((await nack()).state).toBe("pending");
  });

  it("extend_lease: 200 with the new expiry and count; every refusal code", async () => {
    expect(await codeOf(extend({ visibility_timeout: "PT5S" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(extend({ visibility_timeout: "PT601S" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(extend({ visibility_timeout: undefined }))).toBe("SVC_MALFORMED_REQUEST");
    const claimExpiry = new Date(s.world.clock.now().getTime() + 60_000).toISOString();
    expect(await extend({ visibility_timeout: "PT30S" })).toEqual({ lease: { lease_id: lease, lease_expires_at: claimExpiry }, extensions: 0 });
    const r = await extend({ visibility_timeout: "PT300S" });
    expect(r).toEqual({ lease: { lease_id: lease, lease_expires_at: new Date(s.world.clock.now().getTime() + 300_000).toISOString() }, extensions: 1 });
    const limited = await refusal(extend({ visibility_timeout: "PT60S" }));
    expect(limited.code).toBe("SVC_EXTEND_RATE_LIMITED");
    expect(limited.retryAfterSeconds).toBe(10);
    for (let i = 2; i <= 30; i++) {
      s.world.clock.advance(10_000);
      expect((await extend({ visibility_timeout: "PT600S" })).extensions).toBe(i);
    }
    s.world.clock.advance(10_000);
    expect(await codeOf(extend({ visibility_timeout: "PT600S" }))).toBe("SVC_LEASE_EXTENSION_LIMIT_EXCEEDED");
  });

  it("extend_lease clamps at claim time + 1 h, then refuses with SVC_LEASE_AT_CUMULATIVE_CEILING; SVC_LEASE_AT_TTL_CEILING past expiry", async () => {
    const claimedAt = s.world.clock.now().getTime();
    for (let t = 50_000; t <= 3_050_000; t += 500_000) {
      s.world.clock.set(new Date(claimedAt + t));
      const r = await extend({ visibility_timeout: "PT600S" });
      expect(new Date(r.lease.lease_expires_at).getTime()).toBe(Math.min(claimedAt + t + 600_000, claimedAt + 3_600_000));
    }
    s.world.clock.advance(10_000);
    expect(await codeOf(extend({ visibility_timeout: "PT600S" }))).toBe("SVC_LEASE_AT_CUMULATIVE_CEILING");

    const t2 = await createMessagingScenario();
    const short = await t2.send({ ttl: "PT2M" });
    const [item] = await t2.claim({ visibility_timeout: "PT60S" });
    expect(await codeOf(extendLease(t2.world.deps, callContext(t2.bob), { message_id: short, lease_id: item?.lease.lease_id as string, visibility_timeout: "PT600S" }))).toBe("SVC_LEASE_AT_TTL_CEILING");
  });
});
