import type { MiddlewareHandler } from "hono";

/** Node's IncomingMessage, as far as this middleware needs it (@hono/node-server passes it as `c.env.incoming`). */
interface IncomingBody {
  readonly complete: boolean;
  readonly destroyed: boolean;
  resume(): unknown;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end" | "error" | "close", listener: () => void): unknown;
  off(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  off(event: "end" | "error" | "close", listener: () => void): unknown;
}

/** How much of a refused body is read and discarded before the answer goes out (a lingering close). */
export interface UnreadBodyDrainLimits {
  maxBytes: number;
  maxMs: number;
}

const DEFAULT_LIMITS: UnreadBodyDrainLimits = { maxBytes: 8 * 1024 * 1024, maxMs: 2_000 };

/**
 * Makes every response to a request whose body was not read to its end (a 413, 415 or 400
 * refused early, or any other answer given before the body was consumed) say
 * `Connection: close`, so a keep-alive client never reuses a connection the server is about to
 * close. Before the answer is written, what is left of the body is read and discarded, bounded
 * by `limits` (a lingering close, as web servers do): closing a socket with unread bytes makes
 * the kernel reset the connection, and a client could then lose the very answer that explains
 * the refusal. Past the bounds the answer goes out anyway.
 *
 * Only under @hono/node-server (`c.env.incoming`); in-process `app.request()` has no socket.
 */
export function closeAfterUnreadBody(limits: UnreadBodyDrainLimits = DEFAULT_LIMITS): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const incoming = (c.env as { incoming?: IncomingBody } | undefined)?.incoming;
    if (incoming === undefined || incoming.complete) return;
    c.res.headers.set("Connection", "close");
    if (!incoming.destroyed) await drain(incoming, limits);
  };
}

function drain(incoming: IncomingBody, limits: UnreadBodyDrainLimits): Promise<void> {
  return new Promise<void>((resolve) => {
    let bytes = 0;
    const finish = () => {
      clearTimeout(timer);
      incoming.off("data", onData);
      incoming.off("end", finish);
      incoming.off("error", finish);
      incoming.off("close", finish);
      resolve();
    };
    const onData = (chunk: Uint8Array) => {
      bytes += chunk.byteLength;
      if (bytes > limits.maxBytes) finish();
    };
    const timer = setTimeout(finish, limits.maxMs);
    incoming.on("data", onData);
    incoming.on("end", finish);
    incoming.on("error", finish);
    incoming.on("close", finish);
    incoming.resume();
  });
}
