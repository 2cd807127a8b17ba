import type { BenchContext } from "./context.ts";
import { runMcp } from "./mcp-scenario.ts";
import { runDrain, runSend } from "./rest-scenarios.ts";
import type { ServerProcess } from "./server-process.ts";

/** How many HTTP workers the second server of the run has (AGENTQ_WORKERS). */
export const WORKERS = 2;

/**
 * N2: the same send (S1), single-ack drain (S2) and MCP send (S4) scenarios against a second
 * server of the same build with AGENTQ_WORKERS=2 (node:cluster, one port), on the same database
 * and fixture, after the one-worker server's scenarios: the figures land as `N2.<figure>`, so one
 * run shows N = 1 and N = 2 side by side (issue 33).
 */
export async function runTwoWorkers(ctx: BenchContext, start: () => Promise<ServerProcess>): Promise<void> {
  ctx.log(`N2: starting a second server with AGENTQ_WORKERS=${WORKERS}`);
  const server = await start();
  const m = new Map<string, number>();
  const sub: BenchContext = { ...ctx, server, m };
  try {
    await runSend(sub);
    await runDrain(sub, "single");
    await runMcp(sub);
  } finally {
    await server.stop();
  }
  for (const [id, value] of m) ctx.m.set(`N2.${id}`, value);
}
