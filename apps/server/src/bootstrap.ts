// `pnpm bootstrap --workspace NAME --email EMAIL [--password PW] [--json]` (DESIGN §2): creates a
// workspace, its owner, the AI account `admin` and an administrative credential, against the
// database `pnpm start` uses, whether or not the server is running.
import { bootstrapWorkspace, isDomainError, ulidSource } from "@agentq/core";
import { createPgDeps, systemClock } from "@agentq/postgres";
import { parseArgs } from "node:util";
import { openDatabase } from "./database.ts";
import { readEnv } from "./env.ts";
import { hashPassword } from "./password.ts";
import { loadSecrets } from "./secrets.ts";

const USAGE = "usage: pnpm bootstrap --workspace NAME --email EMAIL [--password PW] [--json]";

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { workspace: { type: "string" }, email: { type: "string" }, password: { type: "string" }, json: { type: "boolean", default: false } }, strict: true }));
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (!values.workspace || !values.email) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const env = readEnv();
  const db = await openDatabase(env, { max: 2, stopEmbeddedOnClose: false });
  try {
    const { secrets } = loadSecrets(env);
    const deps = createPgDeps({ sql: db.sql, secrets, clock: systemClock, ids: ulidSource() });
    try {
      const result = await bootstrapWorkspace(deps, { workspaceName: values.workspace, email: values.email, password: values.password ?? null }, { passwordHasher: hashPassword });
      if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else {
        process.stdout.write(
          `workspace     ${result.workspace_id}\nai account    ${result.ai_account_id} (admin)\ncredential    ${result.credential_id}\n` +
            `token         ${result.token}\n\nThe token is shown once. Export it: export SVC_CREDENTIAL=<token>\n`,
        );
      }
      return 0;
    } finally {
      await deps.close();
    }
  } catch (e) {
    if (isDomainError(e)) {
      process.stderr.write(`${e.code}: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await db.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
