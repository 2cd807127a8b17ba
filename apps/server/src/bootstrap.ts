// `pnpm bootstrap --workspace NAME --email EMAIL [--password PW] [--json]` (DESIGN §2): creates a
// workspace, its owner, the AI account `admin` and an administrative credential, against the
// database `pnpm start` uses, whether or not the server is running.
import { bootstrapWorkspace } from "@agentq/core";
import { parseArgs } from "node:util";
import { runCommand } from "./command.ts";
import { argon2PasswordHasher } from "@agentq/runtime";

const USAGE = "usage: pnpm bootstrap --workspace NAME --email EMAIL [--password PW] [--json]";

function parse(): { workspace: string; email: string; password: string | null; json: boolean } | null {
  try {
    const { values } = parseArgs({ options: { workspace: { type: "string" }, email: { type: "string" }, password: { type: "string" }, json: { type: "boolean", default: false } }, strict: true });
    if (!values.workspace || !values.email) return null;
    return { workspace: values.workspace, email: values.email, password: values.password ?? null, json: values.json };
  } catch {
    return null;
  }
}

const args = parse();
if (args === null) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}

runCommand(async (deps) => {
  const result = await bootstrapWorkspace(deps, { workspaceName: args.workspace, email: args.email, password: args.password }, { passwordHasher: argon2PasswordHasher() });
  if (args.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    process.stdout.write(
      `workspace     ${result.workspace_id}\nai account    ${result.ai_account_id} (admin)\ncredential    ${result.credential_id}\n` +
        `token         ${result.token}\n\nThe token is shown once. Export it: export SVC_CREDENTIAL=<token>\n`,
    );
  }
  return 0;
});
