// What a message page says in plain words: the state line ("lease expired 3 min ago, back in the
// queue") and each timeline entry's details. Pure: the page passes the instant it renders at.
import type { MessageWire } from "./wire.ts";

type TimelineEntry = MessageWire["timeline"][number];

/** `ms` as "3 min", "2 h", "45 s", "4 days" (rounded down). */
export function roughDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 172_800) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} days`;
}

/** "3 min ago" or "in 3 min" for `at` seen from `now`. */
export function relativeTo(at: string, now: Date): string {
  const d = new Date(at).getTime() - now.getTime();
  return d >= 0 ? `in ${roughDuration(d)}` : `${roughDuration(-d)} ago`;
}

function last(m: MessageWire, activity: string): TimelineEntry | undefined {
  return [...m.timeline].reverse().find((t) => t.activity === activity);
}

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const deliveries = (n: number) => `${n} ${n === 1 ? "delivery" : "deliveries"}`;

/**
 * Why a message stands where it does, as a code for machines (the page's `data-state-why`): a
 * pending message is waiting, was declined (nacked), had its lease run out, was released from
 * the dead letters or handed off; the other states are their own reason.
 */
export type StateWhy = "held" | "lease_expired" | "nacked" | "released" | "handed_off" | "waiting" | "acknowledged" | "dead_lettered" | "expired" | "other";

/** Where the message stands and why, at `now`: the code and one sentence in plain words. */
export function stateStory(m: MessageWire, now: Date): { why: StateWhy; line: string } {
  const e = m.envelope;
  switch (m.state) {
    case "held":
      return { why: "held", line: m.lease === null ? `Held by ${e.recipient.friendly_name}.` : `Held by ${e.recipient.friendly_name} (delivery ${e.delivery_count}); the lease runs out ${relativeTo(m.lease.expires_at, now)}.` };
    case "pending": {
      if (m.lease !== null && !m.lease.live) return { why: "lease_expired", line: `Lease expired ${relativeTo(m.lease.expires_at, now)}, back in the queue for ${e.recipient.friendly_name} after ${deliveries(e.delivery_count)}.` };
      const nack = last(m, "message.nacked");
      const latest = m.timeline.at(-1);
      if (nack !== undefined && latest === nack) {
        const reason = text(nack.details.reason);
        return { why: "nacked", line: `Declined (nacked) ${relativeTo(nack.at, now)}${reason === null ? "" : `: "${reason}"`}; back in the queue for ${e.recipient.friendly_name}.` };
      }
      if (latest?.activity === "message.released") return { why: "released", line: `Released from the dead letters ${relativeTo(latest.at, now)}; waiting for ${e.recipient.friendly_name}, its delivery count reset.` };
      if (latest?.activity === "message.handed_off") return { why: "handed_off", line: `Handed off to ${e.recipient.friendly_name} ${relativeTo(latest.at, now)}; waiting for it.` };
      return { why: "waiting", line: e.delivery_count === 0 ? `Waiting for ${e.recipient.friendly_name}; not delivered yet.` : `Waiting for ${e.recipient.friendly_name} after ${deliveries(e.delivery_count)}.` };
    }
    case "acknowledged": {
      const ack = last(m, "message.acknowledged");
      const outcome = text(ack?.details.outcome_summary);
      return { why: "acknowledged", line: `Acknowledged by ${e.recipient.friendly_name}${ack === undefined ? "" : ` ${relativeTo(ack.at, now)}`}${outcome === null ? "" : `: "${outcome}"`}.` };
    }
    case "dead_lettered": {
      const dead = last(m, "message.dead_lettered");
      const count = num(dead?.details.delivery_count) ?? e.delivery_count;
      const reason = text(last(m, "message.nacked")?.details.reason);
      return { why: "dead_lettered", line: `Dead-lettered after ${deliveries(count)}${dead === undefined ? "" : ` (${relativeTo(dead.at, now)})`}: it reached the workspace's limit without an acknowledgement${reason === null ? "" : `; the last nack said "${reason}"`}. Release it to deliver it again, or purge it.` };
    }
    case "expired":
      return { why: "expired", line: `Expired ${relativeTo(e.expires_at, now)} after ${deliveries(e.delivery_count)}, never acknowledged.` };
    default:
      return { why: "other", line: `State: ${m.state.replaceAll("_", " ")}.` };
  }
}

/** The name of the AI account `id` as the envelope knows it (sender or recipient), else null. */
export function actorName(m: MessageWire, id: string | null): string | null {
  if (id === null) return null;
  if (id === m.envelope.sender.ai_account_id) return m.envelope.sender.friendly_name;
  if (id === m.envelope.recipient.ai_account_id) return m.envelope.recipient.friendly_name;
  return null;
}

/** A timeline entry's details in words: what the activity recorded (reason, outcome, lease, ...). */
export function entrySummary(t: TimelineEntry): string | null {
  const d = t.details;
  switch (t.activity) {
    case "message.claimed": {
      const until = text(d.lease_expires_at);
      return `Delivery ${num(d.delivery_count) ?? "?"}${until === null ? "" : `; lease until ${until.slice(0, 19).replace("T", " ")} UTC`}.`;
    }
    case "message.nacked": {
      const after = num(d.redeliver_after_ms);
      const reason = text(d.reason);
      return `${reason === null ? "No reason given" : `Reason: "${reason}"`}${after === null ? "" : `; back in the queue after ${roughDuration(after)}`}.`;
    }
    case "message.acknowledged": {
      const outcome = text(d.outcome_summary);
      return outcome === null ? "No outcome summary." : `Outcome: "${outcome}".`;
    }
    case "message.lease_extended": {
      const by = num(d.visibility_timeout_ms);
      return by === null ? null : `Lease extended to ${roughDuration(by)} from then.`;
    }
    case "message.dead_lettered":
      return `After ${deliveries(num(d.delivery_count) ?? 0)}: the limit is ${num(d.max_deliveries) ?? "?"} without an acknowledgement.`;
    case "message.handed_off": {
      const from = (d.from as { friendly_name?: unknown } | undefined)?.friendly_name;
      const to = (d.to as { friendly_name?: unknown } | undefined)?.friendly_name;
      const note = text(d.note);
      return `From ${text(from) ?? "?"} to ${text(to) ?? "?"}${note === null ? "" : `: "${note}"`}.`;
    }
    case "message.released":
      return "Back to pending, its delivery count reset.";
    case "message.expired":
      return "Its time to live ran out.";
    case "message.payload_viewed":
      return "Its payload was read on the dashboard or with get_message_payload.";
    default:
      return null;
  }
}
