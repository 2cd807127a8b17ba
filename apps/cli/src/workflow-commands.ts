import type { Command } from "commander";
import { renderMessageList } from "./human-output.ts";
import type { PrintCall } from "./session-state-commands.ts";

// Agent-workflow commands (DESIGN §2c): hand a held message to another account, read a reply
// thread, and decide on messages held for approval. Each is a thin call of one catalogue
// operation; `send --reply-to` and `pending --thread` live with send and pending in run.ts.

type Json = Record<string, unknown>;

const text = (v: unknown): string => (v === undefined || v === null || v === "" ? "-" : typeof v === "string" ? v : JSON.stringify(v));
const at = (v: unknown, path: string): unknown => path.split(".").reduce<unknown>((cur, k) => (typeof cur === "object" && cur !== null ? (cur as Json)[k] : undefined), v);

/** `hand-off`. */
export function renderHandedOff(body: unknown): string {
  return `handed ${text(at(body, "message_id"))} to ${text(at(body, "recipient.friendly_name"))} (pending, deliveries so far ${text(at(body, "delivery_count"))})\n`;
}

/** `approvals list`: one line per waiting message. */
export function renderApprovals(body: unknown): string {
  const list = (at(body, "items") as Json[] | undefined) ?? [];
  const lines = list.map((i) => `${text(at(i, "envelope.message_id"))}  ${text(at(i, "envelope.sender.friendly_name"))} -> ${text(at(i, "envelope.recipient.friendly_name"))}  ${text(at(i, "envelope.template"))}  held by ${text(at(i, "approval.policy_name"))}  expires ${text(at(i, "envelope.expires_at"))}`);
  if (lines.length === 0) lines.push("nothing waits for approval");
  const next = at(body, "next_cursor");
  if (typeof next === "string") lines.push(`next cursor: ${next}`);
  return `${lines.join("\n")}\n`;
}

/** `approvals approve` and `approvals reject`. */
export function renderDecision(body: unknown): string {
  const state = at(body, "state");
  return `${state === "rejected" ? "rejected" : "approved"} ${text(at(body, "message_id"))} (${text(state)})\n`;
}

/** Registers `hand-off`, `thread` and `approvals` on the program. */
export function registerWorkflowCommands(program: Command, print: PrintCall): void {
  program
    .command("hand-off")
    .description("hand a message held under your lease to another AI account (your lease ends; its delivery count is kept)")
    .argument("<message_id>", "the message id")
    .requiredOption("--lease <lease_id>", "the lease the message arrived with")
    .requiredOption("--to <friendly_name>", "the AI account to hand it to")
    .option("--note <text>", "why it is handed on (shown in the timeline)")
    .action(async (messageId: string, o: { lease: string; to: string; note?: string }) => {
      await print({ operation: "hand_off", input: { message_id: messageId, lease_id: o.lease, to: { friendly_name: o.to }, note: o.note } }, renderHandedOff);
    });

  program
    .command("thread")
    .description("list a reply thread's messages you sent or received, oldest first")
    .argument("<thread_id>", "the thread id (envelope.thread_id)")
    .option("--limit <n>", "page size (default 50, at most 100)")
    .option("--cursor <cursor>", "next_cursor of the previous page")
    .action(async (threadId: string, o: { limit?: string; cursor?: string }) => {
      await print({ operation: "get_thread", input: { thread_id: threadId, limit: o.limit, cursor: o.cursor } }, renderMessageList);
    });

  const approvals = program.command("approvals").description("messages held for a person's approval (administrative credential with scope approve_messages)");
  approvals
    .command("list")
    .description("list what waits for approval, oldest first")
    .option("--limit <n>", "page size (default 50, at most 100)")
    .option("--cursor <cursor>", "next_cursor of the previous page")
    .action(async (o: { limit?: string; cursor?: string }) => {
      await print({ operation: "list_approvals", input: { limit: o.limit, cursor: o.cursor } }, renderApprovals);
    });
  approvals
    .command("approve")
    .description("approve a held message: it becomes pending for its recipient")
    .argument("<message_id>", "the message id")
    .action(async (messageId: string) => {
      await print({ operation: "approve_message", input: { message_id: messageId } }, renderDecision);
    });
  approvals
    .command("reject")
    .description("reject a held message: it is never delivered")
    .argument("<message_id>", "the message id")
    .option("--reason <text>", "why (shown in the timeline)")
    .action(async (messageId: string, o: { reason?: string }) => {
      await print({ operation: "reject_message", input: { message_id: messageId, reason: o.reason } }, renderDecision);
    });
}
