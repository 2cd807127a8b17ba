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

/** Registers `hand-off` and `thread` on the program. */
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
}
