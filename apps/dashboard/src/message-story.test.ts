import { describe, expect, it } from "vitest";
import { stateStory } from "./message-story.ts";
import type { MessageWire } from "./wire.ts";

// The state line's code (`data-state-why`): what a test or a script reads instead of the words.
const NOW = new Date("2026-11-27T15:00:00Z");
const at = (minutesAgo: number) => new Date(NOW.getTime() - minutesAgo * 60_000).toISOString();
const envelope = { recipient: { friendly_name: "worker" }, delivery_count: 1, expires_at: at(-60) } as unknown as MessageWire["envelope"];
const message = (state: string, o: Partial<MessageWire> = {}): MessageWire => ({ envelope, state, lease: null, payload_bytes: 2, timeline: [], ...o });
const entry = (activity: string, details: Record<string, unknown> = {}) => ({ at: at(2), activity, actor_ai_account_id: null, details });
const lease = (live: boolean) => ({ claimed_at: at(5), expires_at: at(live ? -1 : 3), extensions: 0, live });

describe("a message's state line", () => {
  it("says why a pending message waits: its lease ran out, it was nacked, released, handed off, or not yet delivered", () => {
    expect(stateStory(message("pending", { lease: lease(false), timeline: [entry("message.claimed")] }), NOW).why).toBe("lease_expired");
    expect(stateStory(message("pending", { timeline: [entry("message.claimed"), entry("message.nacked", { reason: "disk full" })] }), NOW).why).toBe("nacked");
    expect(stateStory(message("pending", { timeline: [entry("message.released")] }), NOW).why).toBe("released");
    expect(stateStory(message("pending", { timeline: [entry("message.handed_off")] }), NOW).why).toBe("handed_off");
    expect(stateStory(message("pending", { timeline: [entry("message.sent")] }), NOW).why).toBe("waiting");
  });

  it("names the other states by themselves, and an unknown one as other", () => {
    expect(stateStory(message("held", { lease: lease(true) }), NOW).why).toBe("held");
    expect(stateStory(message("acknowledged", { timeline: [entry("message.acknowledged")] }), NOW).why).toBe("acknowledged");
    expect(stateStory(message("dead_lettered", { timeline: [entry("message.dead_lettered", { delivery_count: 10 })] }), NOW).why).toBe("dead_lettered");
    expect(stateStory(message("expired"), NOW).why).toBe("expired");
    expect(stateStory(message("withheld"), NOW).why).toBe("other");
  });

  it("keeps the reason it was given in the line", () => {
    expect(stateStory(message("pending", { timeline: [entry("message.nacked", { reason: "disk full" })] }), NOW).line).toContain('"disk full"');
    expect(stateStory(message("pending", { lease: lease(false) }), NOW).line).toContain("3 min ago");
  });
});
