// `pnpm audit:verify FILE [--key KEY]... [--origin ORIGIN]`: checks offline a chain export (the
// items of GET /v1/audit-log/chain, one JSON object per line, as `pnpm audit:export` writes them),
// a message's receipt, a consistency bundle or a checkpoint note. It is `agentq --json receipt
// verify` (apps/cli), run from the caller's folder: one JSON line on stdout, the exit code of the
// failure class (0 verified, 2 usage, 10 malformed, 11 signature, 12 origin, 13 row, 14 proof;
// docs/receipts.md).
import { run } from "@agentq/cli";
import { readCommandEnv } from "@agentq/runtime";

process.exitCode = await run(["--json", "receipt", "verify", ...process.argv.slice(2)], {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: readCommandEnv().workingDir,
});
