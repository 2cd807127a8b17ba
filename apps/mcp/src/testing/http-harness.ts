import { listenHttp } from "@agentq/http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** A Hono-style app served on a real socket for tests. */
export interface ServedApp {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

/** Serves `fetch` on 127.0.0.1 at a free port, with the production server's timeouts (`listenHttp`; tests only). Closing ends every connection, open MCP session streams included. */
export async function serveOnFreePort(fetch: (request: Request) => Response | Promise<Response>): Promise<ServedApp> {
  const listener = await listenHttp(fetch, { hostname: "127.0.0.1", port: 0 });
  return {
    url: `http://127.0.0.1:${listener.address.port}`,
    close: async () => {
      const closed = listener.close();
      listener.server.closeAllConnections();
      await closed;
    },
  };
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

/** An SDK client in an MCP session, subscribed to `agentq://inbox`, counting the `notifications/resources/updated` it receives. */
export interface InboxSubscriber {
  client: Client;
  /** The session's Mcp-Session-Id. */
  sessionId: string;
  /** How many inbox updates arrived so far. */
  updates(): number;
  /** Resolves once more than `seen` updates arrived; rejects after `timeoutMs` (default 10 s). */
  waitForUpdate(seen: number, timeoutMs?: number): Promise<void>;
  /** Ends the session (DELETE) and closes the client. */
  close(): Promise<void>;
}

/**
 * Connects the SDK client over Streamable HTTP to `<url>/mcp` as `authorization`, waits until
 * its session's GET stream is open (the server registers the stream before it answers the GET),
 * and subscribes to `agentq://inbox`.
 */
export async function subscribeToInbox(url: string, authorization: string): Promise<InboxSubscriber> {
  let streamOpen: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (streamOpen = resolve));
  const watchedFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === "GET" && response.ok) streamOpen();
    return response;
  };
  const client = new Client({ name: "agentq-inbox-test", version: "0.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: authorization } }, fetch: watchedFetch });
  let count = 0;
  const listeners = new Set<() => void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (n.params.uri !== "agentq://inbox") return;
    count += 1;
    for (const l of [...listeners]) l();
  });
  await client.connect(transport);
  await withTimeout(opened, 10_000, "the session's GET stream did not open");
  await client.subscribeResource({ uri: "agentq://inbox" });
  return {
    client,
    sessionId: transport.sessionId ?? "",
    updates: () => count,
    waitForUpdate: (seen, timeoutMs = 10_000) =>
      withTimeout(
        new Promise<void>((resolve) => {
          const check = () => {
            if (count <= seen) return;
            listeners.delete(check);
            resolve();
          };
          listeners.add(check);
          check();
        }),
        timeoutMs,
        `no inbox update after ${seen} within ${timeoutMs} ms`,
      ),
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    p.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export { RecordingOAuthProvider, oauthMcpClient, isUnauthorizedError } from "./oauth-client.ts";
