import { serve } from "@hono/node-server";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * How long the server keeps an idle kept-alive connection open (DESIGN §2c): 65 s, above the
 * idle timeouts of common proxies and clients (60 s for most load balancers, a few seconds for
 * Node's and browsers' agents), so the client side always closes an idle connection first.
 * Node's default, 5 s, races a client that reuses a connection just as the server drops it: the
 * client's request meets a reset before any response.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** How long the server waits for a request's headers (DESIGN §2c): 66 s, just above the keep-alive timeout, so an idle connection ends by the keep-alive rule. */
export const HEADERS_TIMEOUT_MS = 66_000;

/** What a served app answers with: a Hono app's `fetch`, given @hono/node-server's bindings (`incoming`, `outgoing`). */
export type ServedFetch = Parameters<typeof serve>[0]["fetch"];

/** An HTTP server listening with agentq's connection timeouts. */
export interface HttpListener {
  server: Server;
  /** The bound address (the real port when 0 was asked for). */
  address: AddressInfo;
  /**
   * Drains: stops accepting connections, closes the idle ones at once, answers every later
   * request with `Connection: close`, ends a connection about a second after its last response,
   * and resolves once every connection is closed (requests in flight, long polls included, are
   * answered first).
   */
  close: () => Promise<void>;
}

/**
 * Serves `fetch` (a Hono app's, through @hono/node-server) on `hostname:port` with the keep-alive
 * and headers timeouts above: the one way every agentq HTTP server is created (`pnpm start`, the
 * production bundle, the REST-only and MCP-only processes, and the test harnesses), so none runs
 * with Node's defaults. Resolves once the socket listens.
 * @throws (rejects) the listen error, e.g. EADDRINUSE.
 */
export function listenHttp(fetch: ServedFetch, options: { hostname: string; port: number }): Promise<HttpListener> {
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch,
      hostname: options.hostname,
      port: options.port,
      serverOptions: { keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS },
    }) as Server;
    // Each connection's requests in progress: a drain ends the connections with none at once,
    // including one that connected and never sent a request (Node's closeIdleConnections leaves
    // that one to the headers timeout, 66 s).
    const inProgress = new Map<Socket, number>();
    let draining = false;
    server.on("connection", (socket: Socket) => {
      if (draining) return void socket.destroy();
      inProgress.set(socket, 0);
      socket.once("close", () => inProgress.delete(socket));
    });
    server.prependListener("request", (request: IncomingMessage, response: ServerResponse) => {
      const socket = request.socket;
      inProgress.set(socket, (inProgress.get(socket) ?? 0) + 1);
      response.once("close", () => {
        const left = (inProgress.get(socket) ?? 1) - 1;
        if (inProgress.has(socket)) inProgress.set(socket, left);
        if (draining && left === 0) socket.destroySoon();
      });
    });
    const failed = (error: Error) => reject(error);
    server.once("error", failed);
    server.once("listening", () => {
      server.off("error", failed);
      resolve({
        server,
        address: server.address() as AddressInfo,
        close: () =>
          new Promise<void>((done) => {
            // A connection kept alive would hold the drain for the whole keep-alive timeout: a
            // request that arrives on one from now on ends it (its response says Connection:
            // close), and one idle after a response in flight now is closed a moment later
            // (Node re-arms the idle timer with keepAliveTimeout when a response ends).
            server.prependListener("request", (_request, response: ServerResponse) => {
              response.shouldKeepAlive = false;
            });
            server.keepAliveTimeout = 1;
            draining = true;
            server.close(() => done());
            for (const [socket, requests] of inProgress) if (requests === 0) socket.destroy();
          }),
      });
    });
  });
}
