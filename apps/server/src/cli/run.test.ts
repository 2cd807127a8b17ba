import { mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { seedAccount, seedTokenCredential } from "@agentq/core/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { EXIT, run } from "@agentq/cli";
import { captureIo, startService } from "../testing/cli-service.ts";
import type { ServiceUnderTest } from "../testing/cli-service.ts";

let service: ServiceUnderTest;
const directive = { directive_kind: "task", summary: "do it", instructions: "carefully" };

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

/** Runs the CLI in process against the service with `token` as SVC_CREDENTIAL. */
async function cli(argv: string[], token: string | undefined, opts: { stdin?: string; env?: Record<string, string> } = {}) {
  const io = captureIo({ SVC_BASE_URL: service.url, SVC_CREDENTIAL: token, ...opts.env }, opts.stdin);
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

interface PendingJson {
  items: { envelope: { message_id: string; sender: { friendly_name: string } }; payload: unknown; lease: { lease_id: string } }[];
}

async function sendAndClaim(): Promise<{ sender: { friendlyName: string; token: string }; recipient: { friendlyName: string; token: string }; messageId: string; leaseId: string }> {
  const sender = await service.agent();
  const recipient = await service.agent();
  const sent = await cli(["--json", "send", recipient.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive)], sender.token);
  expect(sent.code).toBe(EXIT.ok);
  const pending = await cli(["--json", "pending", "--max", "1"], recipient.token);
  const item = (JSON.parse(pending.out) as PendingJson).items[0]!;
  return { sender, recipient, messageId: item.envelope.message_id, leaseId: item.lease.lease_id };
}

describe("agentq against the REST app", () => {
  it("send -> pending -> ack, human output", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const sent = await cli(["send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive), "--priority", "high", "--correlation-id", "c-9", "--ttl", "P1D", "--deliver-after", "PT0S"], alice.token);
    expect(sent).toMatchObject({ code: EXIT.ok, err: "" });
    expect(sent.out).toMatch(new RegExp(`^sent [0-9A-Z]{26} to ${bob.friendlyName} \\(pending, expires `));
    const messageId = /^sent ([0-9A-Z]{26})/.exec(sent.out)![1]!;

    const pending = await cli(["pending", "--visibility-timeout", "PT60S", "--wait", "PT0S"], bob.token);
    expect(pending.code).toBe(EXIT.ok);
    expect(pending.out).toContain(`${messageId} from ${alice.friendlyName} template=directive priority=high`);
    expect(pending.out).toContain("correlation c-9");
    expect(pending.out).toContain(`payload ${JSON.stringify(directive)}`);
    const leaseId = /lease (\S+) until/.exec(pending.out)![1]!;

    const acked = await cli(["ack", messageId, "--lease", leaseId, "--summary", "done"], bob.token);
    expect(acked.code).toBe(EXIT.ok);
    expect(acked.out).toMatch(new RegExp(`^acknowledged ${messageId} at `));

    const empty = await cli(["pending"], bob.token);
    expect(empty).toMatchObject({ code: EXIT.ok, out: "no pending messages\n" });
  });

  it("pending --wait long-polls until a message arrives", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const timersBefore = service.world.clock.pendingTimers;
    const waiting = cli(["--json", "pending", "--wait", "PT20S"], bob.token);
    // The claim found nothing and is now waiting (its timeout is a timer of the manual clock).
    await vi.waitFor(() => expect(service.world.clock.pendingTimers).toBeGreaterThan(timersBefore));
    const sent = await cli(["--json", "send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive)], alice.token);
    const pending = JSON.parse((await waiting).out) as PendingJson;
    expect(pending.items.map((i) => i.envelope.message_id)).toEqual([(JSON.parse(sent.out) as { message_id: string }).message_id]);
  });

  it("--json prints the service's response bodies", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const sent = await cli(["--json", "send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive)], alice.token);
    expect(JSON.parse(sent.out)).toMatchObject({ state: "pending", recipient: { friendly_name: bob.friendlyName } });
    const pending = JSON.parse((await cli(["--json", "pending"], bob.token)).out) as PendingJson;
    expect(pending.items[0]!.payload).toEqual(directive);
  });

  it("reads the payload from a file (@path) and from standard input (-)", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const dir = await mkdtemp(join(tmpdir(), "agentq-cli-"));
    const file = join(dir, "payload.json");
    await writeFile(file, JSON.stringify({ ...directive, summary: "from file" }));
    expect((await cli(["send", bob.friendlyName, "--template", "directive", "--payload", `@${file}`], alice.token)).code).toBe(EXIT.ok);
    expect((await cli(["send", bob.friendlyName, "--template", "directive", "--payload", "-"], alice.token, { stdin: JSON.stringify({ ...directive, summary: "from stdin" }) })).code).toBe(EXIT.ok);
    const pending = JSON.parse((await cli(["--json", "pending", "--max", "10"], bob.token)).out) as PendingJson;
    expect(pending.items.map((i) => (i.payload as { summary: string }).summary).sort()).toEqual(["from file", "from stdin"]);
  });

  it("replays a send for a repeated --idempotency-key", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const argv = ["--json", "send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive), "--idempotency-key", "cli-once"];
    const first = await cli(argv, alice.token);
    const second = await cli(argv, alice.token);
    expect(second.out).toBe(first.out);
  });

  it("a key spent by agentq send (REST) replays on the MCP send tool, and conflicts there with another body", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const sent = await cli(["--json", "send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive), "--priority", "high", "--idempotency-key", "cross-interface"], alice.token);
    const client = new Client({ name: "cross", version: "0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${alice.token}` } } }));
    const args = { recipient: { friendly_name: bob.friendlyName }, template: "directive", priority: "high", payload: directive, idempotency_key: "cross-interface" };
    const replay = await client.callTool({ name: "send", arguments: args });
    expect(replay.structuredContent).toEqual(JSON.parse(sent.out));
    const conflict = await client.callTool({ name: "send", arguments: { ...args, priority: "low" } });
    expect(conflict.structuredContent).toMatchObject({ error: { code: "SVC_IDEMPOTENCY_CONFLICT" } });
    await client.close();
  });

  it("nack, extend, messages list and messages show", async () => {
    const { sender, recipient, messageId, leaseId } = await sendAndClaim();
    const extended = await cli(["extend", messageId, "--lease", leaseId, "--visibility-timeout", "PT300S"], recipient.token);
    expect(extended.code).toBe(EXIT.ok);
    expect(extended.out).toMatch(new RegExp(`^lease ${leaseId} now expires at \\S+ \\(extensions: 1\\)`));
    const nacked = await cli(["nack", messageId, "--lease", leaseId, "--redeliver-after", "PT0S", "--reason", "busy"], recipient.token);
    expect(nacked.code).toBe(EXIT.ok);
    expect(nacked.out).toMatch(new RegExp(`^declined ${messageId}; available again at `));

    const listed = await cli(["messages", "list", "--role", "sent", "--limit", "10"], sender.token);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.out).toContain(`${messageId}  pending        ${sender.friendlyName} -> ${recipient.friendlyName}  directive`);
    const listedJson = JSON.parse((await cli(["--json", "messages", "list", "--state", "pending"], recipient.token)).out) as { items: unknown[]; next_cursor: string | null };
    expect(listedJson.items).toHaveLength(1);

    const shown = await cli(["messages", "show", messageId], sender.token);
    expect(shown.code).toBe(EXIT.ok);
    expect(shown.out).toContain(`message   ${messageId}`);
    expect(shown.out).toContain("state     pending");
    expect(shown.out).toContain("message.nacked");
  });
});

describe("exit codes", () => {
  it("0 for help and version", async () => {
    expect((await cli(["--help"], undefined)).code).toBe(EXIT.ok);
    expect((await cli(["--version"], undefined)).code).toBe(EXIT.ok);
  });

  it("1 (CLI_INTERNAL) for a failure the CLI does not anticipate: standard input failing under --payload -", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const unreadable = new Readable({
      read() {
        this.destroy(Object.assign(new Error("EIO: i/o error, read"), { code: "EIO" }));
      },
    });
    const io = captureIo({ SVC_BASE_URL: service.url, SVC_CREDENTIAL: alice.token });
    const code = await run(["--json", "send", bob.friendlyName, "--template", "directive", "--payload", "-"], { ...io, stdin: unreadable });
    expect(code).toBe(EXIT.internal);
    expect(io.err()).toMatch(/^CLI_INTERNAL: EIO: i\/o error, read\n$/);
    expect(JSON.parse(io.out())).toEqual({ error: { code: "CLI_INTERNAL", message: "EIO: i/o error, read" }, request_id: null });
    // Nothing was sent.
    expect((await cli(["pending"], bob.token)).out).toBe("no pending messages\n");
  });

  it("1 for an error envelope with a code it does not know at a status it cannot class (a real server answering 300)", async () => {
    const envelope = { error: { code: "SVC_SOMETHING_NEW", message: "a newer refusal" }, request_id: "req_300" };
    const server = createServer((_req, res) => {
      // No Location header: fetch does not follow the redirect status and hands it to the CLI.
      res.writeHead(300, { "Content-Type": "application/json" }).end(JSON.stringify(envelope));
    });
    await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
    try {
      const r = await cli(["--json", "--base-url", `http://127.0.0.1:${(server.address() as AddressInfo).port}`, "pending"], "agq_op_x");
      expect(r.code).toBe(EXIT.internal);
      expect(r.err).toMatch(/^SVC_SOMETHING_NEW: /);
      expect(JSON.parse(r.out)).toEqual(envelope);
    } finally {
      await new Promise<void>((closed) => server.close(() => closed()));
    }
  });

  it("2 for usage errors, printed as CLI_USAGE", async () => {
    for (const argv of [["ack", "01H"], ["pending", "--max", "x"], ["frobnicate"], [], ["send", "bob", "--template", "t", "--payload", "{not json"]]) {
      const r = await cli(argv, "agq_op_whatever");
      expect(r.code, argv.join(" ")).toBe(EXIT.usage);
      expect(r.err, argv.join(" ")).toMatch(/^CLI_USAGE: /m);
    }
  });

  it("2 for a request the service refuses as malformed (SVC_MALFORMED_REQUEST), with the envelope on stdout under --json", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    const r = await cli(["--json", "send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive), "--priority", "whenever"], alice.token);
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(/^SVC_MALFORMED_REQUEST: /);
    expect(JSON.parse(r.out)).toMatchObject({ error: { code: "SVC_MALFORMED_REQUEST" } });
  });

  it("3 without SVC_CREDENTIAL and with an unknown credential", async () => {
    const none = await cli(["pending"], undefined);
    expect(none.code).toBe(EXIT.auth);
    expect(none.err).toMatch(/^CLI_NO_CREDENTIAL: /);
    const unknown = await cli(["pending"], "agq_op_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expect(unknown.code).toBe(EXIT.auth);
    expect(unknown.err).toMatch(/^SVC_UNAUTHENTICATED: /);
  });

  it("3 for SVC_SCOPE_INSUFFICIENT", async () => {
    const account = await seedAccount(service.world, service.workspaceId);
    const { token } = await seedTokenCredential(service.world, account, { scopes: ["send"] });
    const r = await cli(["pending"], token);
    expect(r.code).toBe(EXIT.auth);
    expect(r.err).toMatch(/^SVC_SCOPE_INSUFFICIENT: /);
  });

  it("4 for an unknown recipient and an unknown message", async () => {
    const alice = await service.agent();
    const recipient = await cli(["send", "nobody-here", "--template", "directive", "--payload", JSON.stringify(directive)], alice.token);
    expect(recipient.code).toBe(EXIT.notFound);
    expect(recipient.err).toMatch(/^SVC_RECIPIENT_RESOLUTION_FAILED: /);
    const message = await cli(["messages", "show", "01JZZZZZZZZZZZZZZZZZZZZZZZ"], alice.token);
    expect(message.code).toBe(EXIT.notFound);
    expect(message.err).toMatch(/^SVC_RESOURCE_NOT_FOUND: /);
  });

  it("5 for lease conflicts", async () => {
    const { recipient, messageId } = await sendAndClaim();
    const r = await cli(["ack", messageId, "--lease", "not-the-lease"], recipient.token);
    expect(r.code).toBe(EXIT.conflict);
    expect(r.err).toMatch(/^SVC_LEASE_NOT_HELD: /);
  });

  it("6 for a rate-limited call (second nack of a message within 30 s)", async () => {
    const { recipient, messageId, leaseId } = await sendAndClaim();
    expect((await cli(["nack", messageId, "--lease", leaseId], recipient.token)).code).toBe(EXIT.ok);
    const again = JSON.parse((await cli(["--json", "pending"], recipient.token)).out) as PendingJson;
    const r = await cli(["nack", messageId, "--lease", again.items[0]!.lease.lease_id], recipient.token);
    expect(r.code).toBe(EXIT.retryable);
    expect(r.err).toMatch(/^SVC_NACK_RATE_LIMITED: .* \(retry after \d+ s\)\n$/);
  });

  it("7 when the service cannot be reached or does not speak agentq", async () => {
    const unreachable = await cli(["--base-url", "http://127.0.0.1:1", "pending"], "agq_op_x");
    expect(unreachable.code).toBe(EXIT.network);
    expect(unreachable.err).toMatch(/^CLI_NETWORK: /);
    const io = captureIo({ SVC_CREDENTIAL: "agq_op_x" });
    const code = await run(["pending"], { ...io, fetch: async () => new Response("<html>proxy</html>", { status: 502 }) });
    expect(code).toBe(EXIT.network);
    expect(io.err()).toMatch(/^CLI_BAD_RESPONSE: /);
  });

  it("7 when mcp stdio cannot reach the service, 3 when it has no credential", async () => {
    const unreachable = await cli(["--base-url", "http://127.0.0.1:1", "mcp", "stdio"], "agq_op_x");
    expect(unreachable.code).toBe(EXIT.network);
    expect(unreachable.err).toMatch(/^CLI_NETWORK: /);
    const none = await cli(["mcp", "stdio"], undefined);
    expect(none.code).toBe(EXIT.auth);
    expect(none.err).toMatch(/^CLI_NO_CREDENTIAL: /);
  });

  it("--base-url wins over SVC_BASE_URL, and the default is http://127.0.0.1:8080", async () => {
    const urls: string[] = [];
    const recording: typeof fetch = async (input) => {
      urls.push(input instanceof Request ? input.url : input.toString());
      return new Response(JSON.stringify({ items: [] }), { status: 200 });
    };
    const io = captureIo({ SVC_CREDENTIAL: "agq_op_x", SVC_BASE_URL: "http://env.example:1/" });
    await run(["--base-url", "http://flag.example:2", "pending"], { ...io, fetch: recording });
    await run(["pending"], { ...io, fetch: recording });
    await run(["pending"], { ...captureIo({ SVC_CREDENTIAL: "agq_op_x" }), fetch: recording });
    expect(urls).toEqual(["http://flag.example:2/v1/messages/get-pending", "http://env.example:1/v1/messages/get-pending", "http://127.0.0.1:8080/v1/messages/get-pending"]);
  });

  it("never prints the credential", async () => {
    const token = "agq_op_SECRETSECRETSECRETSECRETSECRETSECRETSECRE";
    for (const argv of [["pending"], ["--json", "pending"], ["ack", "x"], ["--help"]]) {
      const r = await cli(argv, token);
      expect(r.out + r.err).not.toContain("SECRETSECRET");
    }
  });
});
