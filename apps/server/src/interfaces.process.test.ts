import { testDatabaseUrl } from "@agentq/postgres/testing";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { collectProcess, runMcpInspector, runServerCommand, serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

const AGENTQ = fileURLToPath(new URL("../../cli/bin/agentq.js", import.meta.url));

// The real production server, driven from outside by real clients: the MCP Inspector in CLI
// mode and the `agentq` binary as subprocesses.
describe("the running server, from outside", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;
  let sender: string;
  let receiver: string;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url);
    server = await spawnServer(env);
    const boot = await runServerCommand("src/bootstrap.ts", ["--workspace", "outside", "--email", "ops@outside.test", "--json"], env);
    const admin = (JSON.parse(boot.stdout) as { token: string }).token;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.baseUrl}${path}`, { method: "POST", headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
      return (await res.json()) as Record<string, any>;
    };
    const planner = await post("/v1/ai-accounts", { friendly_name: "planner" });
    const builder = await post("/v1/ai-accounts", { friendly_name: "builder" });
    sender = (await post("/v1/credentials", { ai_account_id: planner.id, tier: "operational", scopes: ["send", "list_recipients", "list_templates"], name: "planner" })).token as string;
    receiver = (await post("/v1/credentials", { ai_account_id: builder.id, tier: "operational", scopes: ["get_pending", "ack", "nack"], name: "builder" })).token as string;
  });
  afterAll(async () => {
    server.child.kill("SIGTERM");
    await server.exited;
    await db.drop();
  });

  it("the MCP Inspector in CLI mode lists the tools and calls one", async () => {
    const list = await runMcpInspector(`${server.baseUrl}/mcp`, sender, ["--method", "tools/list"]);
    expect(list.code, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
    // The tools this credential may call (send, list_recipients, list_templates): not the claim tools, nor any administrative one.
    expect(names).toEqual(expect.arrayContaining(["send", "list_recipients", "list_templates", "get_me"]));
    expect(names).not.toContain("get_pending");
    expect(names).not.toContain("create_ai_account");
    const call = await runMcpInspector(`${server.baseUrl}/mcp`, sender, ["--method", "tools/call", "--tool-name", "list_templates"]);
    expect(call.code, call.stderr).toBe(0);
    const result = JSON.parse(call.stdout) as { isError?: boolean; structuredContent: { items: { name: string }[] } };
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent.items.map((t) => t.name)).toContain("directive");
  });

  it("the agentq binary sends, claims and acknowledges against it", async () => {
    const cli = (token: string, args: string[]) => collectProcess(process.execPath, [AGENTQ, "--base-url", server.baseUrl, "--json", ...args], { cwd: process.cwd(), env: { ...process.env, SVC_CREDENTIAL: token } });
    const sent = await cli(sender, ["send", "builder", "--template", "directive", "--payload", JSON.stringify({ directive_kind: "k", summary: "s", instructions: "i" })]);
    expect(sent.code, sent.stderr).toBe(0);
    const messageId = (JSON.parse(sent.stdout) as { message_id: string }).message_id;
    const pending = await cli(receiver, ["pending", "--max", "5"]);
    expect(pending.code, pending.stderr).toBe(0);
    const item = (JSON.parse(pending.stdout) as { items: { envelope: { message_id: string }; lease: { lease_id: string } }[] }).items[0];
    expect(item?.envelope.message_id).toBe(messageId);
    const acked = await cli(receiver, ["ack", messageId, "--lease", item!.lease.lease_id, "--summary", "done"]);
    expect(acked.code, acked.stderr).toBe(0);
    expect((JSON.parse(acked.stdout) as { state: string }).state).toBe("acknowledged");
    // A lease that is no longer current is a conflict: exit code 5, the code on stderr, no credential printed.
    const again = await cli(receiver, ["nack", messageId, "--lease", item!.lease.lease_id]);
    expect(again.code).toBe(5);
    expect(again.stderr).toContain("SVC_LEASE_NOT_HELD");
    expect(again.stderr + again.stdout).not.toContain(receiver);
  });
});
