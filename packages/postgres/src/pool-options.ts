/**
 * How long a pooled connection waits before it reconnects after PostgreSQL closed it, in
 * seconds (postgres.js's `backoff` option). postgres.js's own default grows to 20 s after a
 * handful of failures shared by the whole pool, and a query waiting for that connection waits
 * as long: after a burst of cut connections a request could hang for 20 s. Capped at 1 s here,
 * with jitter so the pool's connections do not reconnect in lockstep.
 */
export function reconnectBackoffSeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 1) * (0.5 + Math.random() / 2);
}

/**
 * How long one connection attempt may take (postgres.js's `connect_timeout`, default 30 s). An
 * attempt whose backend is cut during start-up can stall until this fires, and the queries
 * waiting for it with it; 10 s still leaves room for TLS and authentication to a remote server.
 */
export const CONNECT_TIMEOUT_SECONDS = 10;

/** The pool options every long-lived agentq pool uses, so a cut connection costs a request a 503, never a hang. */
export const resilientPoolOptions = { backoff: reconnectBackoffSeconds, connect_timeout: CONNECT_TIMEOUT_SECONDS } as const;
