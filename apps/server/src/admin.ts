// Operator commands: `pnpm admin workspace freeze|unfreeze WORKSPACE_ID`. Every call of the
// workspace's credentials gets 403 SVC_FROZEN on the very next request (the authenticator
// re-reads the workspace on every call). `pnpm admin workspace plan WORKSPACE_ID PLAN
// [--set key=value]...` sets the workspace's plan and per-workspace overrides
// (docs/guard-rails.md).
import { isDomainError, parsePlanOverrides, setWorkspacePlan, setWorkspaceState, ulidSource } from "@agentq/core";
import { createPgDeps, systemClock } from "@agentq/postgres";
import { openDatabase } from "./database.ts";
import { readEnv } from "./env.ts";
import { loadSecrets } from "./secrets.ts";

const USAGE = "usage: pnpm admin workspace freeze|unfreeze WORKSPACE_ID [--reason TEXT]\n       pnpm admin workspace plan WORKSPACE_ID free|standard|enterprise [--set KEY=VALUE]... [--reason TEXT]";

async function main(argv: string[]): Promise<number> {
  const [area, verb, workspaceId, ...rest] = argv;
  if (area !== "workspace" || (verb !== "freeze" && verb !== "unfreeze" && verb !== "plan") || !workspaceId || (verb === "plan" && rest[0] === undefined)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const reasonAt = rest.indexOf("--reason");
  const reason = reasonAt >= 0 ? (rest[reasonAt + 1] ?? null) : null;
  const env = readEnv();
  const db = await openDatabase(env, { max: 2, stopEmbeddedOnClose: false });
  try {
    const deps = createPgDeps({ sql: db.sql, secrets: loadSecrets(env).secrets, clock: systemClock, ids: ulidSource() });
    try {
      if (verb === "plan") {
        const overrides = parsePlanOverrides(rest.flatMap((arg, i) => (rest[i - 1] === "--set" ? [arg] : [])));
        const set = await setWorkspacePlan(deps, { workspaceId, plan: rest[0] ?? "", overrides, reason });
        process.stdout.write(`${JSON.stringify({ workspace_id: set.workspaceId, plan: set.plan, limits: set.limits })}\n`);
        return 0;
      }
      const ws = await setWorkspaceState(deps, { workspaceId, state: verb === "freeze" ? "frozen" : "active", reason });
      process.stdout.write(`${JSON.stringify({ workspace_id: ws.id, state: ws.state })}\n`);
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
