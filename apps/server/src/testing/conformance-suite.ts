import { spawn, type ChildProcessByStdio } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

/** apps/server, where the suite (a pinned dev dependency) is installed. */
const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));
/** The MCP conformance suite's command (@modelcontextprotocol/conformance). */
const CONFORMANCE = join(SERVER_DIR, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** On Node 20 the suite needs fs.globSync: this loader hands it a module that has it. */
const SHIM = join(SERVER_DIR, "conformance/register-fs-shim.mjs");

/** One check the suite wrote. */
export interface ConformanceCheck {
  id?: string;
  status: string;
  errorMessage?: string;
  details?: unknown;
}

/** Every check the suite wrote under `dir` (its checks.json files), flattened. */
export function conformanceChecksUnder(dir: string): ConformanceCheck[] {
  const found: ConformanceCheck[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...conformanceChecksUnder(path));
    else if (name === "checks.json") found.push(...(JSON.parse(readFileSync(path, "utf8")) as ConformanceCheck[]));
  }
  return found;
}

/** Starts the conformance suite's command with `args` (e.g. `["server", "--url", ..., "-o", dir]`), stdout and stderr piped. */
export function spawnConformance(args: readonly string[]): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, ["--import", SHIM, CONFORMANCE, ...args], { cwd: SERVER_DIR, stdio: ["ignore", "pipe", "pipe"] });
}
