import { listenHttp } from "@agentq/http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A Hono-style app served on a real socket for tests. */
export interface ServedApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** Serves `fetch` on 127.0.0.1 at a free port, with the production server's timeouts (`listenHttp`; tests only). */
export async function serveOnFreePort(fetch: (request: Request) => Response | Promise<Response>): Promise<ServedApp> {
  const listener = await listenHttp(fetch, { hostname: "127.0.0.1", port: 0 });
  return { url: `http://127.0.0.1:${listener.address.port}`, close: listener.close };
}

/** An SDK Client connected over Streamable HTTP to `<url>/mcp` with the given Authorization header. */
export async function connectMcpClient(url: string, authorization: string): Promise<Client> {
  const client = new Client({ name: "agentq-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: authorization } } }));
  return client;
}

/** The structured content of a tool result as a plain object. */
export function structured(result: unknown): Record<string, unknown> {
  return (result as CallToolResult).structuredContent ?? {};
}

/** The SVC_ code of a failed tool result (undefined when it did not fail). */
export function errorCodeOf(result: unknown): string | undefined {
  const r = result as CallToolResult;
  if (r.isError !== true) return undefined;
  return (structured(r)["error"] as { code?: string } | undefined)?.code;
}

export { RecordingOAuthProvider, oauthMcpClient, isUnauthorizedError } from "./oauth-client.ts";
