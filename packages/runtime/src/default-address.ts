// The one place the service's default address is written (DESIGN §2: `pnpm start` listens on
// 127.0.0.1:8080). Exported on its own as "@agentq/runtime/default-address" so a client (the
// CLI) can name it without loading the server's adapters.

/** The interface a server listens on when HOST is not set. */
export const DEFAULT_HOST = "127.0.0.1";

/** The port a server listens on when PORT is not set. */
export const DEFAULT_PORT = 8080;

/**
 * The base URL of a server listening on `host:port` when PUBLIC_BASE_URL is not set:
 * `http://HOST:PORT`, with 127.0.0.1 for a wildcard address (0.0.0.0, ::) and an IPv6 address in
 * brackets.
 */
export function defaultPublicBaseUrl(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

/** Where clients (the CLI, `pnpm audit:*`) find the service when SVC_BASE_URL is not set: a server started with the defaults. */
export const DEFAULT_SERVICE_URL = defaultPublicBaseUrl(DEFAULT_HOST, DEFAULT_PORT);
