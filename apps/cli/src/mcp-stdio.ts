// The low-level Server is used on purpose: a proxy republishes the remote tools' JSON Schemas
// as they are, which the high-level McpServer (zod schemas) cannot do.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, CallToolResultSchema, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { CliError, isWireErrorEnvelope } from "./cli-error.ts";
import type { CliIo } from "./cli-io.ts";
import { EXIT } from "./exit-codes.ts";
import type { ServiceConfig } from "./service-client.ts";

const PROXY_INFO = { name: "agentq-stdio", version: "0.1.0" } as const;

/** The service's error envelope inside a StreamableHTTPError message ("Error POSTing to endpoint: <body>"), if any. */
function envelopeInHttpError(e: StreamableHTTPError): CliError | null {
  const start = e.message.indexOf("{");
  if (start < 0) return null;
  try {
    const parsed: unknown = JSON.parse(e.message.slice(start));
    return isWireErrorEnvelope(parsed) ? CliError.fromService(parsed, e.code ?? 0) : null;
  } catch {
    return null;
  }
}

/** Turns a failure to reach or use the upstream MCP endpoint into a CliError. */
function upstreamFailure(e: unknown, config: ServiceConfig): CliError {
  if (e instanceof CliError) return e;
  if (e instanceof StreamableHTTPError) {
    return envelopeInHttpError(e) ?? (e.code === 401 ? CliError.local("CLI_NO_CREDENTIAL", "The service refused the credential (HTTP 401).") : CliError.local("CLI_BAD_RESPONSE", `The MCP endpoint ${config.baseUrl}/mcp answered HTTP ${e.code ?? "?"}.`));
  }
  if (e instanceof McpError) return new CliError("CLI_BAD_RESPONSE", `The MCP endpoint refused the session: ${e.message}`, EXIT.network);
  return CliError.local("CLI_NETWORK", `Could not reach ${config.baseUrl}/mcp.`);
}

/**
 * A tool result for a call the upstream could not answer (network, HTTP failure): isError with
 * the same error envelope shape the service uses, so the model reads one kind of failure.
 */
function unreachableResult(error: CliError): CallToolResult {
  const envelope = error.envelope ?? { error: { code: "SVC_SERVICE_UNAVAILABLE", message: `The agentq service could not be reached (${error.code}); retry with backoff.` }, request_id: "" };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(envelope) }], structuredContent: envelope as unknown as Record<string, unknown> };
}

/**
 * `agentq mcp stdio`: an MCP server on standard input/output that exposes the service's tools
 * by forwarding tools/list and tools/call to the service's Streamable HTTP endpoint (`/mcp`),
 * with the credential from SVC_CREDENTIAL. The tool list and every result come from the
 * service unchanged, so the stdio tools are the HTTP tools by construction. Resolves when
 * standard input closes.
 * @throws CliError when the service cannot be reached or refuses the credential at startup.
 */
export async function runMcpStdio(config: ServiceConfig, io: CliIo): Promise<void> {
  const client = new Client(PROXY_INFO);
  const upstream = new StreamableHTTPClientTransport(new URL(`${config.baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${config.credential}`, ...(config.traceparent == null ? {} : { traceparent: config.traceparent }) } },
    fetch: config.fetch,
  });
  try {
    await client.connect(upstream);
  } catch (e) {
    throw upstreamFailure(e, config);
  }

  const instructions = client.getInstructions();
  const server = new Server(PROXY_INFO, { capabilities: { tools: {} }, ...(instructions === undefined ? {} : { instructions }) });
  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    try {
      return await client.listTools(request.params, { signal: extra.signal });
    } catch (e) {
      if (e instanceof McpError) throw e;
      throw new McpError(-32603, upstreamFailure(e, config).message);
    }
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      // A raw request rather than client.callTool: results are passed through as the service
      // sent them, without client-side output validation.
      return await client.request({ method: "tools/call", params: request.params }, CallToolResultSchema, { signal: extra.signal });
    } catch (e) {
      if (e instanceof McpError) throw e;
      return unreachableResult(upstreamFailure(e, config));
    }
  });

  const stdio = new StdioServerTransport(io.stdin ?? process.stdin, io.stdoutStream ?? process.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  const input = io.stdin ?? process.stdin;
  input.once("end", () => void server.close());
  await server.connect(stdio);
  await closed;
  await client.close();
}
