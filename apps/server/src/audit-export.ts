// `pnpm audit:export [--out FILE]`: writes the caller's sealed audit chain as JSON lines, page by
// page from GET /v1/audit-log/chain (credential from SVC_CREDENTIAL, base URL from SVC_BASE_URL,
// default http://127.0.0.1:8080), for `pnpm audit:verify FILE`. Needs scope view_audit_log or an
// administrative credential.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { readCommandEnv } from "./env.ts";

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
  const base = env.baseUrl;
  const lines: string[] = [];
  let cursor: string | null = null;
  do {
    const url = new URL(`${base}/v1/audit-log/chain`);
    url.searchParams.set("limit", "100");
    if (cursor !== null) url.searchParams.set("cursor", cursor);
    const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { items?: unknown[]; next_cursor?: string | null; error?: { code: string } };
    if (!res.ok || !Array.isArray(body.items)) {
      process.stderr.write(`export failed: HTTP ${res.status} ${body.error?.code ?? ""}\n`);
      return 1;
    }
    for (const item of body.items) lines.push(JSON.stringify(item));
    cursor = body.next_cursor ?? null;
  } while (cursor !== null);
  const text = lines.map((l) => `${l}\n`).join("");
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
