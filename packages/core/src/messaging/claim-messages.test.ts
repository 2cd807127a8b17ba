import { beforeEach, describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { createMessagingScenario, type MessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext } from "../testing/principal-fixtures.ts";
import { claimMessages } from "./claim-messages.ts";

describe("claimMessages (get-pending)", () => {
  let s: MessagingScenario;
  beforeEach(async () => {
    s = await createMessagingScenario();
  });

  it.each([
    [{ max: 0 }, "max"],
    [{ max: 101 }, "max"],
    [{ max: 2.5 }, "max"],
    [{ visibility_timeout: "PT9S" }, "visibility_timeout"],
    [{ visibility_timeout: "PT601S" }, "visibility_timeout"],
    [{ visibility_timeout: "2 minutes" }, "visibility_timeout"],
    [{ wait: "PT21S" }, "wait"],
    [{ wait: "PT0.5S" }, "wait"],
  ])("refuses %j with SVC_MALFORMED_REQUEST naming %s", async (body, field) => {
    try {
      await claimMessages(s.world.deps, callContext(s.bob), body);
      throw new Error("expected a refusal");
    } catch (e) {
      expect(isDomainError(e) && e.code).toBe("SVC_MALFORMED_REQUEST");
      expect(isDomainError(e) && e.details?.["field"]).toBe(field);
    }
  });

  it("claims in priority order with the default lease of 120 s, at most max, only the caller's messages", async () => {
    const low = await s.send({ priority: "low" });
    const urgent = await s.send({ priority: "urgent" });
    const normal = await s.send();
    await s.send({ recipient: { friendly_name: "alice" } });
    const items = await s.claim({ max: 2 });
    expect(items.map((i) => i.envelope.message_id)).toEqual([urgent, normal]);
    expect(items[0]?.lease.lease_expires_at).toBe(new Date(s.world.clock.now().getTime() + 120_000).toISOString());
    expect((await s.claim()).map((i) => i.envelope.message_id)).toEqual([low]);
    expect(await s.claim()).toEqual([]);
  });

  it("long-polls: parks until a send wakes it, then returns the new message", async () => {
    const pending = claimMessages(s.world.deps, callContext(s.bob), { wait: "PT20S" });
    while (s.world.notifier.waiting({ workspaceId: s.bob.workspace.id, recipientId: s.bob.account.id }) === 0) await Promise.resolve();
    const id = await s.send();
    expect((await pending).items.map((i) => i.envelope.message_id)).toEqual([id]);
  });

  it("long-polls until the deadline (virtual time) and returns empty", async () => {
    const pending = claimMessages(s.world.deps, callContext(s.bob), { wait: "PT5S" });
    while (s.world.notifier.waiting({ workspaceId: s.bob.workspace.id, recipientId: s.bob.account.id }) === 0) await Promise.resolve();
    s.world.clock.advance(5_000);
    expect(await pending).toEqual({ items: [] });
  });

  it("a spurious wake-up (notified but nothing claimable) parks again rather than returning", async () => {
    const pending = claimMessages(s.world.deps, callContext(s.bob), { wait: "PT10S" });
    const target = { workspaceId: s.bob.workspace.id, recipientId: s.bob.account.id };
    while (s.world.notifier.waiting(target) === 0) await Promise.resolve();
    await s.world.notifier.notifyMessages(target);
    while (s.world.notifier.waiting(target) === 0) await Promise.resolve();
    const id = await s.send();
    expect((await pending).items.map((i) => i.envelope.message_id)).toEqual([id]);
  });

  it("stops waiting when the request's signal aborts", async () => {
    const ac = new AbortController();
    const pending = claimMessages(s.world.deps, callContext(s.bob, { signal: ac.signal }), { wait: "PT20S" });
    while (s.world.notifier.waiting({ workspaceId: s.bob.workspace.id, recipientId: s.bob.account.id }) === 0) await Promise.resolve();
    ac.abort();
    expect(await pending).toEqual({ items: [] });
  });

  it("dead-letters a message past the workspace's max_deliveries and delivers the next one instead", async () => {
    const d = await createMessagingScenario({ maxDeliveries: 1 });
    const first = await d.send({ priority: "urgent" });
    expect((await d.claim({ visibility_timeout: "PT10S" })).map((i) => i.envelope.message_id)).toEqual([first]);
    d.world.clock.advance(10_000);
    const second = await d.send();
    expect((await d.claim({ max: 1 })).map((i) => i.envelope.message_id)).toEqual([second]);
  });
});
