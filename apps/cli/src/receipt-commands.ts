import { parseVerifierKey, verifyOfflineFile, type OfflineFailure, type OfflineVerification } from "@agentq/core";
import type { Command } from "commander";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { CliError } from "./cli-error.ts";
import type { CliIo } from "./cli-io.ts";
import { EXIT, type ExitCode } from "./exit-codes.ts";

/** The exit code of each failure class of an offline verification (documented in README.md and docs/receipts.md). */
export const VERIFY_EXIT: Readonly<Record<OfflineFailure, ExitCode>> = {
  malformed: EXIT.verifyMalformed,
  no_key: EXIT.usage,
  signature: EXIT.verifySignature,
  origin: EXIT.verifyOrigin,
  row: EXIT.verifyRow,
  proof: EXIT.verifyProof,
};

/** The largest file `receipt verify` reads (a chain export of about a million rows). */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

function readTextFile(path: string, what: string): string {
  try {
    if (statSync(path).size > MAX_FILE_BYTES) throw CliError.local("CLI_USAGE", `${what} ${path} is larger than 1 GiB.`);
    return readFileSync(path, "utf8");
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw CliError.local("CLI_USAGE", `cannot read ${what} ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The trusted verifier keys of `--key` values: each a verifier key string
 * (`<name>+<key hash>+<base64 key>`) or the path of a key document (one key per line, as
 * `/.well-known/agentq-log-key` serves it).
 */
function trustedKeys(values: readonly string[], cwd: string): string[] {
  return values.flatMap((value) => {
    if (parseVerifierKey(value) !== null) return [value];
    const lines = readTextFile(resolve(cwd, value), "key document").split("\n").map((l) => l.trim()).filter((l) => l !== "");
    const bad = lines.find((l) => parseVerifierKey(l) === null);
    if (lines.length === 0 || bad !== undefined) throw CliError.local("CLI_USAGE", `--key ${value} is neither a verifier key (<name>+<key hash>+<base64 key>) nor a file of them.`);
    return lines;
  });
}

function describeSuccess(r: Extract<OfflineVerification, { ok: true }>): string {
  const f = r.facts;
  switch (r.kind) {
    case "receipt":
      return `OK receipt: message ${String(f["message_id"])} is row ${String(f["seq"])} of ${String(f["origin"])} at tree size ${String(f["tree_size"])}`;
    case "consistency":
      return `OK consistency: ${String(f["origin"])} at tree size ${String(f["tree_size"])} extends tree size ${String(f["from"])}`;
    case "checkpoint":
      return `OK checkpoint: ${String(f["origin"])} at tree size ${String(f["tree_size"])}`;
    case "export":
      return `OK export: ${String(f["rows"])} rows and ${String(f["withheld"])} withheld links verify, head seq ${String((f["head"] as { seq?: number } | null)?.seq ?? 0)}`;
  }
}

function describeFailure(r: Extract<OfflineVerification, { ok: false }>): string {
  if (r.kind === "export") return `audit chain does not verify: line ${String(r.facts["line"])} (seq ${String(r.facts["seq"])}) is ${r.fault}`;
  if (r.failure === "no_key") return `${r.kind ?? "file"} is signed but no key was given and none is embedded: pass --key (a verifier key, or a file of /.well-known/agentq-log-key)`;
  return `${r.kind ?? "file"} does not verify: ${r.fault}`;
}

/**
 * `agentq receipt verify FILE... [--key KEY]... [--origin ORIGIN]`: checks receipts, consistency
 * bundles, checkpoints or chain exports offline (no network), each file on its own line, and
 * exits with the class of the first failure (`VERIFY_EXIT`). `pnpm audit:verify` runs the same command.
 */
export function registerReceiptCommands(program: Command, io: CliIo, json: () => boolean, setExit: (code: ExitCode) => void): void {
  const receipt = program.command("receipt").description("verify audit-log receipts offline");
  receipt
    .command("verify")
    .description(
      "verify a receipt, a consistency bundle, a checkpoint or a chain export offline (no network). " +
        "Keys: the --key values are trusted, else the file's own verifier_keys (that proves only that the file is consistent with itself). " +
        "Exit: 0 verified, 2 usage (or no key), 10 malformed file, 11 bad signature, 12 wrong origin (another workspace or server), 13 row does not match, 14 proof does not hold.",
    )
    .argument("<files...>", "each file: a receipt (GET /v1/messages/{id}/receipt), a consistency bundle, a checkpoint note, or a chain export (JSON lines)")
    .option("--key <key>", "trust this verifier key, or the keys of this key document file (repeatable)", (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option("--origin <origin>", "the log the checkpoints must be of (<host>/agentq/<workspace id>)")
    .action((files: string[], o: { key: string[]; origin?: string }) => {
      const cwd = io.cwd ?? process.cwd();
      const keys = trustedKeys(o.key, cwd);
      // Every file is checked and reported; the exit code is the first failure's (in argument order).
      let failed = false;
      for (const file of files) {
        const text = readTextFile(resolve(cwd, file), "file");
        const r = verifyOfflineFile(text, { verifierKeys: keys, ...(o.origin === undefined ? {} : { expectedOrigin: o.origin }) });
        const named = files.length > 1 ? `${file}: ` : "";
        const out = r.ok ? { verified: true, kind: r.kind, keys: r.keys, ...r.facts } : { verified: false, kind: r.kind, keys: r.keys, failure: r.failure, fault: r.fault, ...r.facts };
        // The export's reason keeps the name `pnpm audit:verify` always printed.
        if (!r.ok && r.kind === "export") Object.assign(out, { reason: r.fault });
        io.stdout.write(json() ? `${JSON.stringify(files.length > 1 ? { file, ...out } : out)}\n` : `${named}${r.ok ? describeSuccess(r) : `FAIL ${r.failure}: ${describeFailure(r)}`}\n`);
        if (r.keys === "embedded") io.stderr.write(`${named}note: checked against the keys embedded in the file; pin the log's key with --key to rule out a forged file\n`);
        if (!r.ok) {
          if (json()) io.stderr.write(`${named}${describeFailure(r)}\n`);
          if (!failed) setExit(VERIFY_EXIT[r.failure]);
          failed = true;
        }
      }
    });
}
