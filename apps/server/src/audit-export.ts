// `pnpm audit:export [--out FILE]`: writes the caller's sealed audit chain as JSON lines, page by
// page from GET /v1/audit-log/chain (credential from SVC_CREDENTIAL, base URL from SVC_BASE_URL,
// default the service's default address), for `pnpm audit:verify FILE`. Needs scope view_audit_log or an
// administrative credential. A 429 (or 503) is waited out as its Retry-After says (at most 5 waits
// in a row, 60 s each; see downloadAuditChain). Exit 0 written, 1 failed, 2 usage.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_RETRY_WAITS, downloadAuditChain } from "./audit-chain-download.ts";
import { readCommandEnv } from "@agentq/runtime";

async function main(argv: readonly string[]): Promise<number> {
  const outIndex = argv.indexOf("--out");
  const out = outIndex >= 0 ? argv[outIndex + 1] : undefined;
  if ((outIndex >= 0 && out === undefined) || argv.length !== (outIndex >= 0 ? 2 : 0)) {
    process.stderr.write("usage: pnpm audit:export [--out FILE]   (SVC_CREDENTIAL, SVC_BASE_URL)\n");
    return 2;
  }
  const env = readCommandEnv();
  const token = env.credential;
  if (token === null) {
    process.stderr.write("SVC_CREDENTIAL is not set\n");
    return 2;
  }
  const result = await downloadAuditChain({
    baseUrl: env.baseUrl,
    token,
    onWait: (delayMs, attempt, status) => process.stderr.write(`HTTP ${status}: retrying in ${Math.ceil(delayMs / 1000)} s (wait ${attempt} of ${DEFAULT_RETRY_WAITS.maxWaitsPerPage})\n`),
  });
  if (!result.ok) {
    process.stderr.write(`export failed: HTTP ${result.status} ${result.code ?? ""}\n`);
    return 1;
  }
  const text = result.lines.map((l) => `${l}\n`).join("");
  if (out === undefined) process.stdout.write(text);
  else writeFileSync(resolve(env.workingDir, out), text);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  },
);
