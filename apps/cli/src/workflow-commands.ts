import type { Command } from "commander";
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

/** Registers `hand-off` on the program. */
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
}
