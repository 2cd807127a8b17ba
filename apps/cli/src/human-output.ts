// Human-readable renderings of the REST responses the CLI prints without --json. They read
// fields defensively: a field the service omits prints as "-" rather than failing.

type Json = Record<string, unknown>;

function field(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const key of path.split(".")) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Json)[key];
  }
  return cur;
}

function text(value: unknown, path: string): string {
  const v = field(value, path);
  if (v === undefined || v === null || v === "") return "-";
  return typeof v === "string" ? v : JSON.stringify(v);
}

function items(body: unknown): unknown[] {
  const list = field(body, "items");
  return Array.isArray(list) ? list : [];
}

/** `send`: one line naming the message and where it went. */
export function renderSent(body: unknown): string {
  return `sent ${text(body, "message_id")} to ${text(body, "recipient.friendly_name")} (${text(body, "state")}, expires ${text(body, "expires_at")})\n`;
}

/** `pending`: one block per claimed message with its lease and payload. */
export function renderPending(body: unknown): string {
  const claimed = items(body);
  if (claimed.length === 0) return "no pending messages\n";
  return claimed
    .map((item) =>
      [
        `${text(item, "envelope.message_id")} from ${text(item, "envelope.sender.friendly_name")} template=${text(item, "envelope.template")} priority=${text(item, "envelope.priority")} deliveries=${text(item, "envelope.delivery_count")}`,
        `  lease ${text(item, "lease.lease_id")} until ${text(item, "lease.lease_expires_at")}`,
        ...(field(item, "envelope.correlation_id") === undefined || field(item, "envelope.correlation_id") === null ? [] : [`  correlation ${text(item, "envelope.correlation_id")}`]),
        `  payload ${JSON.stringify(field(item, "payload") ?? null)}`,
      ].join("\n"),
    )
    .join("\n")
    .concat("\n");
}

/** `ack`. */
export function renderAcked(body: unknown): string {
  return `acknowledged ${text(body, "message_id")} at ${text(body, "acknowledged_at")}\n`;
}

/** `nack`. */
export function renderNacked(body: unknown): string {
  return `declined ${text(body, "message_id")}; available again at ${text(body, "available_at")}\n`;
}

/** `extend`. */
export function renderExtended(body: unknown): string {
  return `lease ${text(body, "lease.lease_id")} now expires at ${text(body, "lease.lease_expires_at")} (extensions: ${text(body, "extensions")})\n`;
}

function messageId(item: unknown): string {
  return field(item, "message_id") !== undefined ? text(item, "message_id") : text(item, "envelope.message_id");
}

function party(item: unknown, who: "sender" | "recipient"): string {
  return field(item, `${who}.friendly_name`) !== undefined ? text(item, `${who}.friendly_name`) : text(item, `envelope.${who}.friendly_name`);
}

function template(item: unknown): string {
  return field(item, "template") !== undefined ? text(item, "template") : text(item, "envelope.template");
}

/** `messages list`: one line per message, then the cursor of the next page when there is one. */
export function renderMessageList(body: unknown): string {
  const list = items(body);
  const lines = list.map((item) => `${messageId(item)}  ${text(item, "state").padEnd(13)}  ${party(item, "sender")} -> ${party(item, "recipient")}  ${template(item)}`);
  if (lines.length === 0) lines.push("no messages");
  const next = field(body, "next_cursor");
  if (typeof next === "string") lines.push(`next cursor: ${next}`);
  return `${lines.join("\n")}\n`;
}

/** `messages show`: the envelope, the state and the timeline. */
export function renderMessage(body: unknown): string {
  const envelope = field(body, "envelope") ?? body;
  const lines = [
    `message   ${text(envelope, "message_id")}`,
    `state     ${text(body, "state")}`,
    `from      ${text(envelope, "sender.friendly_name")}`,
    `to        ${text(envelope, "recipient.friendly_name")}`,
    `template  ${text(envelope, "template")}`,
    `priority  ${text(envelope, "priority")}`,
    `accepted  ${text(envelope, "accepted_at")}`,
    `expires   ${text(envelope, "expires_at")}`,
  ];
  const correlation = field(envelope, "correlation_id");
  if (correlation !== undefined && correlation !== null) lines.push(`correlation ${text(envelope, "correlation_id")}`);
  const timeline = field(body, "timeline");
  if (Array.isArray(timeline) && timeline.length > 0) {
    lines.push("timeline");
    for (const entry of timeline) {
      const at = text(entry, "at") !== "-" ? text(entry, "at") : text(entry, "occurred_at");
      const what = text(entry, "event") !== "-" ? text(entry, "event") : text(entry, "activity");
      lines.push(`  ${at}  ${what}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
