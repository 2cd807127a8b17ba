import { validTraceparent } from "@agentq/core";
import { DEFAULT_SERVICE_URL } from "@agentq/runtime/default-address";
import { randomUUID } from "node:crypto";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { CliError } from "./cli-error.ts";
import type { CliIo } from "./cli-io.ts";
import { EXIT } from "./exit-codes.ts";
import type { ExitCode } from "./exit-codes.ts";
import { renderAcked, renderExtended, renderMessage, renderMessageList, renderNacked, renderPending, renderSent } from "./human-output.ts";
import { runMcpStdio } from "./mcp-stdio.ts";
import { readPayloadArgument } from "./payload-input.ts";
import { callOperation } from "./service-client.ts";
import { registerSessionStateCommands } from "./session-state-commands.ts";
import { registerLearningCommands } from "./learning-commands.ts";
import { registerWorkflowCommands } from "./workflow-commands.ts";

import { registerReceiptCommands } from "./receipt-commands.ts";
import type { OperationRequest, ServiceConfig } from "./service-client.ts";

/** The base URL when neither --base-url nor SVC_BASE_URL is given: a server started with the defaults (DESIGN §2). */
export const DEFAULT_BASE_URL = DEFAULT_SERVICE_URL;

interface GlobalOptions {
  baseUrl?: string;
  json?: boolean;
}

function parseInteger(value: string): number {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError("not an integer.");
  return Number(value);
}

/** The base URL from --base-url, else SVC_BASE_URL, else the default; without trailing slashes. */
export function resolveBaseUrl(flag: string | undefined, env: CliIo["env"]): string {
  const raw = flag ?? env["SVC_BASE_URL"] ?? DEFAULT_BASE_URL;
  try {
    const url = new URL(raw);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
  } catch {
    throw CliError.local("CLI_USAGE", `The base URL ${raw} is not an http(s) URL.`);
  }
  return raw.replace(/\/+$/, "");
}

/**
 * The caller's trace context from TRACEPARENT (W3C Trace Context, as a parent process or a CI
 * system sets it), sent on every request so that a send from the command line joins the
 * caller's trace (DESIGN §2c Telemetry); an invalid value is ignored.
 */
function resolveTraceparent(env: CliIo["env"]): string | null {
  return validTraceparent(env["TRACEPARENT"]?.trim());
}

/** The credential from SVC_CREDENTIAL (the only place it is read from: never a flag, never printed). */
export function resolveCredential(env: CliIo["env"]): string {
  const credential = env["SVC_CREDENTIAL"]?.trim();
  if (credential === undefined || credential === "") throw CliError.local("CLI_NO_CREDENTIAL", "Set SVC_CREDENTIAL to an agentq credential.");
  return credential;
}

/**
 * Runs the `agentq` command line with `argv` (the arguments after the program name) and
 * returns the exit code. Never throws and never calls process.exit: failures print
 * `CODE: message` on stderr (and the error envelope on stdout with --json) and map to the exit
 * codes of exit-codes.ts.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  let exitCode: ExitCode = EXIT.ok;
  const program = new Command("agentq");
  const config = (): ServiceConfig => {
    const opts = program.opts<GlobalOptions>();
    return { baseUrl: resolveBaseUrl(opts.baseUrl, io.env), credential: resolveCredential(io.env), fetch: io.fetch ?? globalThis.fetch, traceparent: resolveTraceparent(io.env) };
  };
  const json = (): boolean => program.opts<GlobalOptions>().json === true;
  const print = async (req: OperationRequest, render: (body: unknown) => string): Promise<void> => {
    const body = await callOperation(config(), req);
    io.stdout.write(json() ? `${JSON.stringify(body, null, 2)}\n` : render(body));
  };

  program
    .description("Command-line client of the agentq message queue. Credential: SVC_CREDENTIAL. Service: --base-url or SVC_BASE_URL.")
    .option("--base-url <url>", `service base URL (default: SVC_BASE_URL or ${DEFAULT_BASE_URL})`)
    .version("0.1.0")
    .option("--json", "print the service's JSON responses instead of human output")
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      outputError: (s, write) => write(`CLI_USAGE: ${s.replace(/^error: /, "")}`),
    });

  program
    .command("send")
    .description("send a message to another AI account of the workspace")
    .argument("<recipient>", "friendly name of the recipient AI account")
    .requiredOption("--template <name>", "template the payload follows")
    .requiredOption("--payload <json|@file|->", "payload: inline JSON, @path of a JSON file, or - for standard input")
    .option("--priority <priority>", "low | normal | high | urgent")
    .option("--correlation-id <id>", "correlation label (up to 128 characters)")
    .option("--ttl <duration>", "time to live, ISO 8601 (default P7D, at most P14D)")
    .option("--deliver-after <duration>", "delay before delivery, ISO 8601 (default PT0S)")
    .option("--reply-to <message_id>", "a message you sent or received that this one answers (joins its thread)")
    .option("--idempotency-key <key>", "Idempotency-Key (default: a fresh random key); reuse it to retry safely")
    .action(async (recipient: string, o: { template: string; payload: string; priority?: string; correlationId?: string; ttl?: string; deliverAfter?: string; replyTo?: string; idempotencyKey?: string }) => {
      const payload = await readPayloadArgument(o.payload, io.stdin ?? process.stdin);
      const envelope = { recipient: { friendly_name: recipient }, template: o.template, priority: o.priority, correlation_id: o.correlationId, ttl: o.ttl, deliver_after: o.deliverAfter, reply_to: o.replyTo };
      const compact = Object.fromEntries(Object.entries(envelope).filter(([, v]) => v !== undefined));
      await print({ operation: "send", input: { envelope: compact, payload }, idempotencyKey: o.idempotencyKey ?? randomUUID() }, renderSent);
    });

  program
    .command("pending")
    .description("claim pending messages under a lease (long-polls with --wait)")
    .option("--max <n>", "at most this many messages (default 10, at most 100)", parseInteger)
    .option("--visibility-timeout <duration>", "lease length, ISO 8601, PT10S..PT600S (default PT120S)")
    .option("--wait <duration>", "long-poll up to this long for a message, ISO 8601, up to PT20S (default PT0S)")
    .option("--thread <thread_id>", "claim only this thread's messages (wait for a reply)")
    .action(async (o: { max?: number; visibilityTimeout?: string; wait?: string; thread?: string }) => {
      await print({ operation: "get_pending", input: { max: o.max, visibility_timeout: o.visibilityTimeout, wait: o.wait, thread_id: o.thread } }, renderPending);
    });

  program
    .command("ack")
    .description("acknowledge a message held under a lease")
    .argument("<message_id>", "the message id")
    .requiredOption("--lease <lease_id>", "the lease the message arrived with")
    .option("--summary <text>", "outcome summary")
    .action(async (messageId: string, o: { lease: string; summary?: string }) => {
      await print({ operation: "ack", input: { message_id: messageId, lease_id: o.lease, outcome_summary: o.summary } }, renderAcked);
    });

  program
    .command("nack")
    .description("decline a message held under a lease and set when it returns")
    .argument("<message_id>", "the message id")
    .requiredOption("--lease <lease_id>", "the lease the message arrived with")
    .option("--redeliver-after <duration>", "when the message returns, ISO 8601 (default PT0S)")
    .option("--reason <text>", "why it was declined")
    .action(async (messageId: string, o: { lease: string; redeliverAfter?: string; reason?: string }) => {
      await print({ operation: "nack", input: { message_id: messageId, lease_id: o.lease, redeliver_after: o.redeliverAfter, reason: o.reason } }, renderNacked);
    });

  program
    .command("extend")
    .description("extend a held lease")
    .argument("<message_id>", "the message id")
    .requiredOption("--lease <lease_id>", "the lease to extend")
    .requiredOption("--visibility-timeout <duration>", "new lease length from now, ISO 8601, PT10S..PT600S")
    .action(async (messageId: string, o: { lease: string; visibilityTimeout: string }) => {
      await print({ operation: "extend_lease", input: { message_id: messageId, lease_id: o.lease, visibility_timeout: o.visibilityTimeout } }, renderExtended);
    });

  const messages = program.command("messages").description("read the caller's messages");
  messages
    .command("list")
    .description("list messages the caller sent or received, newest first")
    .option("--state <state>", "pending | held | acknowledged | expired | dead_lettered")
    .option("--role <role>", "sent | received | any")
    .option("--limit <n>", "page size (default 50, at most 100)", parseInteger)
    .option("--cursor <cursor>", "next_cursor of the previous page")
    .action(async (o: { state?: string; role?: string; limit?: number; cursor?: string }) => {
      await print({ operation: "list_messages", input: { state: o.state, role: o.role, limit: o.limit, cursor: o.cursor } }, renderMessageList);
    });
  messages
    .command("show")
    .description("show a message: envelope, state and timeline")
    .argument("<message_id>", "the message id")
    .action(async (messageId: string) => {
      await print({ operation: "get_message", input: { message_id: messageId } }, renderMessage);
    });

  registerWorkflowCommands(program, print);
  registerSessionStateCommands(program, io, print);
  registerLearningCommands(program, io, print, (req) => callOperation(config(), req), json);

  registerReceiptCommands(program, io, json, (code) => {
    exitCode = code;
  });

  const mcp = program.command("mcp").description("MCP transports");
  mcp
    .command("stdio")
    .description("serve the agentq MCP tools on standard input/output, forwarding every call to the service")
    .action(async () => {
      const opts = program.opts<GlobalOptions>();
      await runMcpStdio({ baseUrl: resolveBaseUrl(opts.baseUrl, io.env), credential: resolveCredential(io.env), fetch: io.fetch ?? globalThis.fetch, traceparent: resolveTraceparent(io.env) }, io);
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (e) {
    exitCode = report(e, io, json());
  }
  return exitCode;
}

/** Prints a failure and returns its exit code. */
function report(e: unknown, io: CliIo, json: boolean): ExitCode {
  if (e instanceof CommanderError) {
    // Help and version are "errors" only to exitOverride; commander already printed them (and
    // its usage errors, as CLI_USAGE). Help shown because a command is missing is a usage error.
    if (e.exitCode === 0) return EXIT.ok;
    if (e.code === "commander.help") io.stderr.write("CLI_USAGE: a command is required.\n");
    return EXIT.usage;
  }
  const error = e instanceof CliError ? e : CliError.local("CLI_INTERNAL", e instanceof Error ? e.message : String(e));
  const retry = error.retryAfterSeconds === null ? "" : ` (retry after ${error.retryAfterSeconds} s)`;
  io.stderr.write(`${error.code}: ${error.message}${retry}\n`);
  if (json) {
    const envelope = error.envelope ?? { error: { code: error.code, message: error.message }, request_id: null };
    io.stdout.write(`${JSON.stringify(envelope, null, 2)}\n`);
  }
  return error.exitCode;
}
