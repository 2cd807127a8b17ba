import { pino, type DestinationStream, type Logger } from "pino";

/**
 * The structured logger (pino, JSON lines on stdout, or on `destination` when given: tests read
 * the lines back). Authorization headers, tokens and bodies are never passed to it; the
 * redaction list is a second line of defence.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    // pid: several workers of one server (AGENTQ_WORKERS) write to the same output.
    base: { service: "agentq", pid: process.pid },
    redact: { paths: ["token", "*.token", "authorization", "*.authorization", "headers.authorization", "payload", "*.payload", "password", "*.password"], censor: "[redacted]" },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

export type { Logger };
