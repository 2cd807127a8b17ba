import { EXIT, exitCodeForServiceError } from "./exit-codes.ts";
import type { ExitCode } from "./exit-codes.ts";

/** Codes of failures the CLI detects itself, before or instead of an answer from the service. */
export type LocalErrorCode = "CLI_USAGE" | "CLI_NO_CREDENTIAL" | "CLI_NETWORK" | "CLI_BAD_RESPONSE" | "CLI_INTERNAL";

const LOCAL_EXIT: Readonly<Record<LocalErrorCode, ExitCode>> = {
  CLI_USAGE: EXIT.usage,
  CLI_NO_CREDENTIAL: EXIT.auth,
  CLI_NETWORK: EXIT.network,
  CLI_BAD_RESPONSE: EXIT.network,
  CLI_INTERNAL: EXIT.internal,
};

/** The error envelope of the service (`{ error: { code, message, details? }, request_id }`). */
export interface WireErrorEnvelope {
  error: { code: string; message: string; details?: Record<string, unknown> };
  request_id: string;
}

/**
 * A failure the CLI reports: printed as `CODE: message` on stderr, ending the process with the
 * exit code of its class. `envelope` is the service's error envelope when the service answered.
 */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: ExitCode;
  readonly envelope: WireErrorEnvelope | null;
  /** The service's Retry-After (seconds) on a retryable refusal, when it sent one. */
  readonly retryAfterSeconds: number | null;

  constructor(code: string, message: string, exitCode: ExitCode, envelope: WireErrorEnvelope | null = null, retryAfterSeconds: number | null = null) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.exitCode = exitCode;
    this.envelope = envelope;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** A failure found by the CLI itself. */
  static local(code: LocalErrorCode, message: string): CliError {
    return new CliError(code, message, LOCAL_EXIT[code]);
  }

  /** A refusal by the service, from its error envelope, HTTP status and Retry-After header. */
  static fromService(envelope: WireErrorEnvelope, status: number, retryAfter: string | null = null): CliError {
    const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter.trim()) : null;
    return new CliError(envelope.error.code, envelope.error.message, exitCodeForServiceError(envelope.error.code, status), envelope, seconds);
  }
}

/** True when `value` has the shape of the service's error envelope. */
export function isWireErrorEnvelope(value: unknown): value is WireErrorEnvelope {
  if (typeof value !== "object" || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string" && typeof (error as { message?: unknown }).message === "string";
}
