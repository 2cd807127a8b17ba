// `pnpm audit:verify <file.jsonl>`: checks a chain export (the items of GET /v1/audit-log/chain,
// one JSON object per line, as `pnpm audit:export` writes them) offline: every visible row's hash
// is recomputed and linked to its predecessor; withheld rows count by their link. Exit 0 when the
// export verifies, 1 when a line fails (named on stderr), 2 on usage errors.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { verifyAuditExport } from "@agentq/core";
import { readCommandEnv } from "@agentq/runtime";

function main(argv: readonly string[]): number {
  const file = argv[0];
  if (file === undefined || argv.length !== 1 || file === "--help") {
    process.stderr.write("usage: pnpm audit:verify <file.jsonl>\n");
    return 2;
  }
  let text: string;
  try {
    text = readFileSync(resolve(readCommandEnv().workingDir, file), "utf8");
  } catch (e) {
    process.stderr.write(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  const result = verifyAuditExport(text.split("\n"));
  if (result.ok) {
    process.stdout.write(`${JSON.stringify({ verified: true, rows: result.rows, withheld: result.withheld, head: result.head })}\n`);
    return 0;
  }
  process.stdout.write(`${JSON.stringify({ verified: false, line: result.line, seq: result.seq, id: result.id, reason: result.reason })}\n`);
  process.stderr.write(`audit chain does not verify: line ${result.line} (seq ${String(result.seq)}) is ${result.reason}\n`);
  return 1;
}

process.exitCode = main(process.argv.slice(2));
