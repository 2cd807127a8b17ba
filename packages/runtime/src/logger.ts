import { pino, type DestinationStream, type Logger } from "pino";

/**
 * The names the structured logger censors wherever they appear at the top level or one level
 * down: a second line of defence, since authorization headers, tokens and bodies are never passed
 * to it.
 */
export const LOG_REDACT_PATHS: readonly string[] = ["token", "*.token", "authorization", "*.authorization", "headers.authorization", "payload", "*.payload", "password", "*.password"];

/** pid: several workers of one server (AGENTQ_WORKERS) write to the same output. */
const base = () => ({ service: "agentq", pid: process.pid });

/**
 * The structured logger (pino, JSON lines on stdout, or on `destination` when given: tests read
 * the lines back), with the redaction list above.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: base(), redact: { paths: [...LOG_REDACT_PATHS], censor: "[redacted]" } };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/**
 * The logger of the access-log line alone (`accessLogTo`): the same output and fields, without the
 * redaction pass. That line is a flat record of a fixed shape (`ServedRequest`: method, route,
 * status, ids, duration) whose keys are none of LOG_REDACT_PATHS (`logger.test.ts` holds them
 * apart), and the pass cost a copy of it per request: 7 % of the server's CPU per send
 * (docs/performance.md, lever y).
 */
export function createAccessLogger(level: string, destination?: DestinationStream): Logger {
  const options = { level, base: base() };
  return destination === undefined ? pino(options) : pino(options, destination);
}

export type { Logger };
