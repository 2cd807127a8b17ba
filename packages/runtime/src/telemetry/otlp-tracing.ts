// Loaded only when OTLP export is configured (`loadTracing` imports this file dynamically), so a
// server without tracing never loads the OpenTelemetry SDK.
import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { EdgeTracing } from "@agentq/http";

/** This process's tracing: the edges' tracer, and how to flush and stop the export. */
export interface ProcessTracing extends EdgeTracing {
  shutdown(): Promise<void>;
}

/**
 * The OpenTelemetry SDK of a server process (the composition root's, STYLE): spans batched to
 * an OTLP/HTTP exporter that reads the standard variables itself (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, OTEL_TRACES_SAMPLER),
 * under the resource `service.name` agentq unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES
 * say otherwise. Registered as the global tracer provider too.
 */
export function startOtlpTracing(): ProcessTracing {
  const resource = resourceFromAttributes({ "service.name": "agentq" }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  trace.setGlobalTracerProvider(provider);
  return { tracer: provider.getTracer("agentq"), shutdown: () => provider.shutdown() };
}
