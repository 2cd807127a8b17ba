import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES, scopesOfToolset } from "@agentq/core";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { BenchContext } from "./context.ts";
import { apiClient, expectStatus } from "./http-client.ts";

/** Every toolset named in the MCP URL: the most a credential of a tier is shown. */
const EVERY_TOOLSET = "?toolsets=messaging,session_state,admin";

/** The credential kinds whose `tools/list` C1 measures: id, tier, scopes, the URL's query. */
const KINDS = [
  { id: "operational_messaging", tier: "operational", scopes: scopesOfToolset("messaging"), query: "" },
  { id: "operational_all", tier: "operational", scopes: [...OPERATIONAL_SCOPES], query: EVERY_TOOLSET },
  { id: "administrative_all", tier: "administrative", scopes: [...ADMINISTRATIVE_SCOPES], query: EVERY_TOOLSET },
] as const;

/**
 * C1: what an agent pays for the tool catalogue on every turn (DESIGN §2c). For each credential
 * kind, a credential is issued over REST and the MCP SDK client lists the tools: their count and
 * the JSON bytes of the `tools/list` result; plus the largest single tool any of them is shown.
 * Cheap (a few requests), so a tool that bloats the catalogue shows in every run.
 */
export async function runMcpCatalogue(ctx: BenchContext): Promise<void> {
  const rest = apiClient(ctx.server.baseUrl, 1);
  let largest = 0;
  try {
    for (const kind of KINDS) {
      const credential = expectStatus(
        await rest.call(ctx.fixture.adminToken, "POST", "/v1/credentials", { ai_account_id: ctx.fixture.sender.id, tier: kind.tier, scopes: kind.scopes, name: `bench catalogue ${kind.id}` }),
        201,
        `issue the ${kind.id} credential`,
      );
      const client = new Client({ name: "agentq-bench", version: "0.1.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.server.baseUrl}/mcp${kind.query}`), { requestInit: { headers: { Authorization: `Bearer ${credential.body.token as string}` } } }));
      try {
        const result = await client.listTools();
        const bytes = Buffer.byteLength(JSON.stringify(result));
        for (const tool of result.tools) largest = Math.max(largest, Buffer.byteLength(JSON.stringify(tool)));
        ctx.m.set(`C1.bytes.${kind.id}`, bytes);
        ctx.m.set(`C1.tools.${kind.id}`, result.tools.length);
        ctx.log(`C1 tools/list for ${kind.id}${kind.query}: ${result.tools.length} tools, ${bytes} bytes`);
      } finally {
        await client.close();
      }
    }
    ctx.m.set("C1.largest_tool", largest);
  } finally {
    await rest.close();
  }
}
