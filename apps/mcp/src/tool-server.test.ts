import { DomainError, OPERATIONAL_SCOPES, OPERATIONS, createAuthenticator } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps, seedAccount, seedTokenCredential } from "@agentq/core/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { ToolCaller } from "./call-tool.ts";
import { toolBindings } from "./tool-binding.ts";
import { createToolServer } from "./tool-server.ts";

// The tool server without HTTP: the SDK Client over the in-memory transport, with a fixed
// caller, as the HTTP app builds it per request.
async function connect(caller: ToolCaller, world: ReturnType<typeof createInMemoryDeps>): Promise<Client> {
  const server = createToolServer(toolBindings(OPERATIONS), { deps: world.deps, caller, requestId: "req-test", newIdempotencyKey: () => world.deps.ids.next() });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "in-memory", version: "0" });
  await client.connect(clientSide);
  return client;
}

describe("createToolServer (in-memory transport)", () => {
  it("announces agentq with tools only, and runs a tool as the fixed caller", async () => {
    const world = createInMemoryDeps();
    const ws = await bootstrapScenarioWorkspace(world, "in-memory", createAuthenticator(world.deps));
    const account = await seedAccount(world, ws.workspace_id);
    const { credential } = await seedTokenCredential(world, account, { scopes: [...OPERATIONAL_SCOPES] });
    const principal = { ...ws.principal, account, credential };
    const client = await connect({ kind: "principal", principal }, world);
    expect(client.getServerVersion()?.name).toBe("agentq");
    expect(client.getServerCapabilities()).toEqual({ tools: {} });
    const result = (await client.callTool({ name: "list_recipients", arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent?.["items"] as { friendly_name: string }[]).map((i) => i.friendly_name)).toContain(account.friendlyName);
    await client.close();
  });

  it("answers every call of a refused caller with that refusal and the request id", async () => {
    const world = createInMemoryDeps();
    const client = await connect({ kind: "refused", error: new DomainError("SVC_WORKSPACE_CLOSED", "closed") }, world);
    const result = (await client.callTool({ name: "get_pending", arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error: { code: "SVC_WORKSPACE_CLOSED", message: "closed" }, request_id: "req-test" });
    await client.close();
  });
});
