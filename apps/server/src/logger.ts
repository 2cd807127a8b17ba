import { pino, type Logger } from "pino";

/**
 * The structured logger (pino, JSON lines on stdout). Authorization headers, tokens and bodies
 * are never passed to it; the redaction list is a second line of defence.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: "agentq" },
    redact: { paths: ["token", "*.token", "authorization", "*.authorization", "headers.authorization", "payload", "*.payload", "password", "*.password"], censor: "[redacted]" },
  });
}

export type { Logger };
