import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";
import { CliError } from "./cli-error.ts";

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The JSON value of a `--payload` argument: inline JSON, `@path` (a file), or `-` (standard
 * input).
 * @throws CliError CLI_USAGE when the file cannot be read or the text is not JSON.
 */
export async function readPayloadArgument(arg: string, stdin: Readable): Promise<unknown> {
  let text: string;
  let source: string;
  if (arg === "-") {
    text = await readAll(stdin);
    source = "standard input";
  } else if (arg.startsWith("@")) {
    const path = arg.slice(1);
    source = path;
    try {
      text = await readFile(path, "utf8");
    } catch (e) {
      throw CliError.local("CLI_USAGE", `Cannot read --payload file ${path}: ${(e as NodeJS.ErrnoException).code ?? "error"}.`);
    }
  } else {
    text = arg;
    source = "--payload";
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw CliError.local("CLI_USAGE", `The payload from ${source} is not valid JSON.`);
  }
}
