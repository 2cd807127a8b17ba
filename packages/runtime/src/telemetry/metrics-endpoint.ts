import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ServerEnv } from "../env.ts";
import type { MetricsSource, ServiceMetrics } from "./prometheus-metrics.ts";

/** The metrics listener: where it listens and how to close it. */
export interface MetricsEndpoint {
  address: AddressInfo;
  close(): Promise<void>;
}

/** Loads prom-client and creates this process's metrics (only called when METRICS_PORT is set). */
export async function loadMetrics(settings: NonNullable<ServerEnv["metrics"]>): Promise<ServiceMetrics> {
  const { createServiceMetrics } = await import("./prometheus-metrics.ts");
  return createServiceMetrics({ workspaceLabels: settings.workspaceLabels });
}

/** The source a listener reads: this process's registry, or the cluster's aggregate on a primary. */
export async function metricsSource(from: ServiceMetrics | "cluster"): Promise<MetricsSource> {
  const m = await import("./prometheus-metrics.ts");
  return from === "cluster" ? m.clusterSource() : m.registrySource(from);
}

/**
 * Serves `GET /metrics` (Prometheus text, from `source`) on a listener of its own at
 * METRICS_HOST:METRICS_PORT, apart from the API's port so that it is never exposed with it.
 * Any other path is 404, any other method 405; a failed read is 500 with no detail.
 */
export async function listenMetrics(settings: NonNullable<ServerEnv["metrics"]>, source: MetricsSource): Promise<MetricsEndpoint> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?", 1)[0];
    if (path !== "/metrics") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain" }).end("method not allowed\n");
      return;
    }
    source.read().then(
      (text) => res.writeHead(200, { "Content-Type": source.contentType, "Cache-Control": "no-store" }).end(req.method === "HEAD" ? undefined : text),
      () => res.writeHead(500, { "Content-Type": "text/plain" }).end("metrics unavailable\n"),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    address: server.address() as AddressInfo,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
