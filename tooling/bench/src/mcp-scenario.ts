import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { BenchContext } from "./context.ts";
import { PAYLOAD } from "./fixture.ts";
import { runLoad } from "./load.ts";
import { newKey } from "./rest-scenarios.ts";
import { perSecond, summarise } from "./stats.ts";

/** In-flight calls of S4 (compared with S1 at the same level). */
export const MCP_IN_FLIGHT = 8;

/** S4: the `send` tool through the MCP SDK client over Streamable HTTP at <base>/mcp, 8 calls in flight. */
export async function runMcp(ctx: BenchContext): Promise<void> {
  const client = new Client({ name: "agentq-bench", version: "0.1.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${ctx.server.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ctx.fixture.sender.token}` } } });
  await client.connect(transport);
  const call = async () => {
    const result = await client.callTool({
      name: "send",
      arguments: { recipient: { friendly_name: "mcp" }, template: "directive", payload: PAYLOAD, idempotency_key: newKey("s4") },
    });
    if (result.isError) throw new Error(`MCP send: ${JSON.stringify(result.structuredContent ?? result.content).slice(0, 400)}`);
  };
  try {
    await call();
    ctx.log(`S4 MCP send tool, ${MCP_IN_FLIGHT} in flight, ${ctx.sizes.levelMs / 1000} s`);
    const cpuBefore = ctx.server.cpuMs();
    const r = await runLoad({ name: "S4", inFlight: MCP_IN_FLIGHT, maxOps: 10_000_000, maxMs: ctx.sizes.levelMs, op: call, log: ctx.log });
    // The server's CPU per call during the level (the sealing of its audit rows that runs after it is not counted).
    const cpuUs = ((ctx.server.cpuMs() - cpuBefore) * 1000) / r.count;
    const s = summarise(r.latencies);
    ctx.m.set(`S4.mcp@${MCP_IN_FLIGHT}`, perSecond(r.count, r.elapsedMs));
    ctx.m.set(`S4.server_cpu_us@${MCP_IN_FLIGHT}`, cpuUs);
    ctx.m.set(`S4.p50@${MCP_IN_FLIGHT}`, s.p50);
    ctx.log(`  ${perSecond(r.count, r.elapsedMs).toFixed(0)} calls/s, p50 ${s.p50.toFixed(2)} ms, server CPU ${cpuUs.toFixed(0)} µs per call`);
  } finally {
    await client.close();
  }
}
