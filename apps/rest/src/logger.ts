/**
 * The logger the REST app writes server faults to. The signature is pino's (`logger.error(fields,
 * message)`), so the composition root passes a pino logger as is. Fields never carry request
 * bodies or credentials (DESIGN §4).
 */
export interface RestLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

/** A logger writing one JSON line per entry to stderr, for when the composition root gives none. */
export function stderrLogger(): RestLogger {
  return {
    error(fields, message) {
      process.stderr.write(`${JSON.stringify({ level: "error", time: new Date().toISOString(), msg: message, ...fields })}\n`);
    },
  };
}
