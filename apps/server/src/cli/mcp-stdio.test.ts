import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "@agentq/cli";
import { startService } from "../testing/cli-service.ts";
import type { ServiceUnderTest } from "../testing/cli-service.ts";

// Each test starts one or two real processes (tsx compiles the sources at start-up), slow on a
// loaded machine.
const SUBPROCESS_TIMEOUT_MS = 120_000;
const BIN = fileURLToPath(new URL("../../../cli/bin/agentq.js", import.meta.url));
const directive = { directive_kind: "task", summary: "do it", instructions: "carefully" };

let service: ServiceUnderTest;
const clients: Client[] = [];

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await service.close();
});

/** The real `agentq mcp stdio` process, driven by the SDK client over its stdin/stdout. */
async function stdioClient(token: string, env: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "stdio-test", version: "0.0.0" });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "mcp", "stdio"],
    env: { PATH: process.env["PATH"] ?? "", SVC_BASE_URL: service.url, SVC_CREDENTIAL: token, ...env },
    stderr: "pipe",
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

function structured(result: unknown): Record<string, unknown> {
  return (result as CallToolResult).structuredContent ?? {};
}

describe("agentq mcp stdio (real subprocess)", () => {
  it("lists exactly the tools of the HTTP endpoint and forwards calls: send -> get_pending -> ack", async () => {
    const alice = await service.agent();
    const bob = await service.agent();
    // The caller's TRACEPARENT goes upstream with every call (issue 29): the message carries it.
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const viaStdio = await stdioClient(alice.token, { TRACEPARENT: traceparent });
    const viaHttp = new Client({ name: "http-test", version: "0.0.0" });
    await viaHttp.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${alice.token}` } } }));
    clients.push(viaHttp);
    expect((await viaStdio.listTools()).tools).toEqual((await viaHttp.listTools()).tools);

    const sent = await viaStdio.callTool({ name: "send", arguments: { recipient: { friendly_name: bob.friendlyName }, template: "directive", payload: directive } });
    expect(sent.isError).toBeFalsy();
    const messageId = structured(sent)["message_id"] as string;

    const bobStdio = await stdioClient(bob.token);
    const pending = await bobStdio.callTool({ name: "get_pending", arguments: {} });
    const item = (structured(pending)["items"] as { envelope: { message_id: string; traceparent: string | null }; lease: { lease_id: string } }[])[0]!;
    expect(item.envelope.message_id).toBe(messageId);
    expect(item.envelope.traceparent).toBe(traceparent);
    const acked = await bobStdio.callTool({ name: "ack", arguments: { message_id: messageId, lease_id: item.lease.lease_id } });
    expect(structured(acked)).toMatchObject({ message_id: messageId, state: "acknowledged" });
  }, SUBPROCESS_TIMEOUT_MS);

  it("passes failures through as isError results with the service's code", async () => {
    const alice = await service.agent();
    const c = await stdioClient(alice.token);
    const result = await c.callTool({ name: "send", arguments: { recipient: { friendly_name: "nobody-here" }, template: "directive", payload: directive } });
    expect(result.isError).toBe(true);
    expect(structured(result)).toMatchObject({ error: { code: "SVC_RECIPIENT_RESOLUTION_FAILED" } });
  }, SUBPROCESS_TIMEOUT_MS);

  it("exits 0 when standard input closes", async () => {
    const agent = await service.agent();
    const child = spawn(process.execPath, [BIN, "mcp", "stdio"], { env: { PATH: process.env["PATH"] ?? "", SVC_BASE_URL: service.url, SVC_CREDENTIAL: agent.token }, stdio: ["pipe", "pipe", "pipe"] });
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(EXIT.ok);
  }, SUBPROCESS_TIMEOUT_MS);

  it("exits with the auth exit code and CODE: message on stderr when the service refuses the credential", async () => {
    const child = spawn(process.execPath, [BIN, "mcp", "stdio"], {
      env: { PATH: process.env["PATH"] ?? "", SVC_BASE_URL: service.url, SVC_CREDENTIAL: "agq_op_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(EXIT.auth);
    expect(stderr).toMatch(/^SVC_UNAUTHENTICATED: /m);
  }, SUBPROCESS_TIMEOUT_MS);
});
