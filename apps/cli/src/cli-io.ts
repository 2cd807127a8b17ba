import type { Readable, Writable } from "node:stream";

/** A sink for text (process.stdout and process.stderr satisfy it). */
export interface TextSink {
  write(text: string): unknown;
}

/**
 * The world `run` talks to, injected so tests drive the CLI in process: output streams, the
 * environment (SVC_BASE_URL, SVC_CREDENTIAL), and optionally the fetch function and stdin.
 */
export interface CliIo {
  stdout: TextSink;
  stderr: TextSink;
  env: Readonly<Record<string, string | undefined>>;
  /** The fetch used for every HTTP call (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** Standard input, read by `--payload -` and served by `mcp stdio` (default: process.stdin). */
  stdin?: Readable;
  /** Standard output as a stream, written by `mcp stdio` (default: process.stdout). */
  stdoutStream?: Writable;
  /** The folder relative file arguments are read from (default: process.cwd()); `pnpm audit:verify` passes the caller's. */
  cwd?: string;
}
