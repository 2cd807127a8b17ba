import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { BenchContext } from "./context.ts";
import { runMcp } from "./mcp-scenario.ts";
import { runSend } from "./rest-scenarios.ts";
import type { ServerProcess } from "./server-process.ts";

/**
 * T: the send (S1) and MCP send (S4) scenarios against a second server of the same build with
 * telemetry on (issue 29): `METRICS_PORT` (a free port) and OTLP/HTTP trace export, every span
 * sampled, to a receiver of this run on 127.0.0.1 that accepts each export. The figures land as
 * `T.<figure>` beside the telemetry-off server's, so one run shows the cost (goal: at most 10 %
 * fewer sends a second).
 */
export async function runTelemetryOn(ctx: BenchContext, start: (env: Record<string, string>) => Promise<ServerProcess>): Promise<void> {
  let exports = 0;
  let bytes = 0;
  const sink = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (bytes += chunk.length));
    req.on("end", () => {
      exports++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  ctx.log(`T: starting a second server with METRICS_PORT and OTLP export to ${endpoint}`);
  const server = await start({ METRICS_PORT: "0", OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: "always_on" });
  const m = new Map<string, number>();
  const sub: BenchContext = { ...ctx, server, m };
  try {
    await runSend(sub);
    await runMcp(sub);
  } finally {
    await server.stop();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  }
  for (const [id, value] of m) ctx.m.set(`T.${id}`, value);
  ctx.m.set("T.exports", exports);
  ctx.m.set("T.export_mb", bytes / 1048576);
  ctx.log(`  T: ${exports} OTLP exports received, ${(bytes / 1048576).toFixed(1)} MB`);
}
