import { describe, expect, it } from "vitest";
import { executeOperation } from "../execution/execute.ts";
import { findOperation } from "../catalogue.ts";
import { isDomainError } from "../errors.ts";
import type { MessagingEvent } from "../ports.ts";
import { ackMessage } from "../messaging/ack-message.ts";
import { nackMessage } from "../messaging/nack-message.ts";
import { sendMessage } from "../messaging/send-message.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext, seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { MINUTE_MS } from "../time/duration.ts";
import { purgeMinuteStats, recordMinuteStats, type WorkspaceStatsView } from "./minute-series.ts";

const op = (name: string) => {
  const found = findOperation(name);
  if (found === undefined) throw new Error(name);
  return found;
};
const codeOf = (p: Promise<unknown>) => p.then(() => "ok", (e: unknown) => (isDomainError(e) ? e.code : "thrown"));

describe("the minute series (get_workspace_stats)", () => {
  it("answers one entry per minute of the window from what the background work recorded, administrative callers only", async () => {
    const s = await createMessagingScenario();
    for (let i = 0; i < 3; i++) await s.send();
    const [item] = await s.claim({ max: 1 });
    if (item === undefined) throw new Error("nothing claimed");
    await ackMessage(s.world.deps, callContext(s.bob), { message_id: item.envelope.message_id, lease_id: item.lease.lease_id });
    s.world.clock.advance(MINUTE_MS + 1_000);
    expect(await recordMinuteStats(s.world.deps)).toBeGreaterThan(0);

    const hour = (await executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.admin), { window: "PT1H" })).body as WorkspaceStatsView;
    expect(hour.minutes).toHaveLength(60);
    expect(hour.minutes.reduce((n, m) => n + m.sent, 0)).toBe(3);
    expect(hour.minutes.reduce((n, m) => n + m.acknowledged, 0)).toBe(1);
    expect(hour.minutes.at(-1)).toMatchObject({ pending: 2, oldest_pending_age_seconds: 61 });
    expect(hour.ai_account_id).toBeNull();
    // Bob's own series as recipient: the same traffic (all of it was sent to him); alice received nothing.
    const bobs = (await executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.admin), { ai_account_id: s.bob.account.id })).body as WorkspaceStatsView;
    expect(bobs.ai_account_id).toBe(s.bob.account.id);
    expect(bobs.minutes).toHaveLength(60);
    expect(bobs.minutes.reduce((n, m) => n + m.sent, 0)).toBe(3);
    expect(bobs.minutes.reduce((n, m) => n + m.acknowledged, 0)).toBe(1);
    expect(bobs.minutes.at(-1)).toMatchObject({ pending: 2, oldest_pending_age_seconds: 61 });
    const alices = (await executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.admin), { ai_account_id: s.alice.account.id })).body as WorkspaceStatsView;
    expect(alices.minutes.every((m) => m.sent === 0 && m.acknowledged === 0 && m.pending === 0)).toBe(true);
    // An account of another workspace (or none) is not found.
    const other = await seedTestWorkspace(s.world.deps.stores);
    const stranger = await seedPrincipal(s.world.deps.stores, other, { friendlyName: "stranger", tier: "administrative", scopes: ["manage_ai_accounts"] });
    expect(await codeOf(executeOperation(s.world.deps, op("get_workspace_stats"), callContext(stranger), { ai_account_id: s.bob.account.id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.admin), { ai_account_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.admin), { ai_account_id: "x".repeat(65) }))).toBe("SVC_MALFORMED_REQUEST");
    const day = (await executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.admin), { window: "P1D" })).body as WorkspaceStatsView;
    expect(day.minutes).toHaveLength(1440);
    expect(await codeOf(executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.admin), { window: "PT2H" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(executeOperation(s.world.deps, op("get_workspace_stats"), callContext(s.bob), {}))).toBe("SVC_TIER_INSUFFICIENT");

    // Kept 14 days, then purged.
    s.world.clock.advance(15 * 24 * 60 * MINUTE_MS);
    expect(await purgeMinuteStats(s.world.deps)).toBeGreaterThan(0);
    expect(await s.world.deps.stores.stats.listMinutes({ workspaceId: s.admin.workspace.id, from: new Date(0) })).toEqual([]);
  });
});

describe("the message meter (MessageMeter)", () => {
  it("counts sends, claims, acks and nacks once committed, never a replayed or refused send", async () => {
    const s = await createMessagingScenario();
    const counted: Record<string, number> = {};
    s.world.deps.meter = { count: (event: MessagingEvent, n: number) => void (counted[event] = (counted[event] ?? 0) + n) };
    const input = { envelope: { recipient: { friendly_name: "bob" }, template: "directive" }, payload: { directive_kind: "task", summary: "s", instructions: "i" } };
    const ctx = callContext(s.alice, { idempotencyKey: "once" });
    await sendMessage(s.world.deps, ctx, input);
    // A replay of the key answers the stored send: nothing new committed.
    await sendMessage(s.world.deps, ctx, input);
    expect(await codeOf(sendMessage(s.world.deps, callContext(s.alice), { ...input, envelope: { ...input.envelope, recipient: { friendly_name: "nobody" } } }))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
    await s.send();
    const items = await s.claim({ max: 2 });
    const [first, second] = items;
    if (first === undefined || second === undefined) throw new Error("not claimed");
    await ackMessage(s.world.deps, callContext(s.bob), { message_id: first.envelope.message_id, lease_id: first.lease.lease_id });
    await nackMessage(s.world.deps, callContext(s.bob), { message_id: second.envelope.message_id, lease_id: second.lease.lease_id });
    // An ack under a lease no longer held changes nothing and counts nothing.
    expect(await codeOf(ackMessage(s.world.deps, callContext(s.bob), { message_id: second.envelope.message_id, lease_id: second.lease.lease_id }))).not.toBe("ok");
    expect(counted).toEqual({ sent: 2, claimed: 2, acknowledged: 1, nacked: 1 });
  });
});
