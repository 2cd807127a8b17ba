import { parsePlanOverrides, setWorkspacePlan, setWorkspaceState, PLAN_NAMES } from "@agentq/core";
import type { PgDeps } from "@agentq/postgres";
import { Command, Option } from "commander";

/** Runs an operator action against the database and returns the process's exit code. */
export type RunAction = (fn: (deps: PgDeps) => Promise<number>) => void;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * `pnpm admin workspace ...`: the operator's commands on one workspace.
 * - `freeze|unfreeze WORKSPACE_ID [--reason TEXT]`: every call of the workspace's credentials
 *   gets 403 SVC_FROZEN on the very next request (the authenticator re-reads the workspace).
 * - `plan WORKSPACE_ID free|standard|enterprise [--set key=value]... [--reason TEXT]`: the plan
 *   and its per-workspace overrides (docs/guard-rails.md), in force at once in every server
 *   process (a plan change notifies them through PostgreSQL).
 * Each prints one JSON line on success.
 */
export function workspaceCommand(run: RunAction): Command {
  const workspace = new Command("workspace").description("operate on one workspace");
  for (const verb of ["freeze", "unfreeze"] as const) {
    workspace
      .command(`${verb} <workspace_id>`)
      .description(verb === "freeze" ? "freeze a workspace: its agents get 403 SVC_FROZEN on their next request" : "unfreeze a workspace")
      .option("--reason <text>", "why (kept in the audit row)")
      .action((workspaceId: string, opts: { reason?: string }) =>
        run(async (deps) => {
          const ws = await setWorkspaceState(deps, { workspaceId, state: verb === "freeze" ? "frozen" : "active", reason: opts.reason ?? null });
          process.stdout.write(`${JSON.stringify({ workspace_id: ws.id, state: ws.state })}\n`);
          return 0;
        }),
      );
  }
  workspace
    .command("plan <workspace_id>")
    .description("set a workspace's plan and its overrides (caps and rate limits)")
    .addArgument(new Command().createArgument("<plan>", "plan name").choices(PLAN_NAMES))
    .option("--set <key=value>", "override one limit (repeatable): ai_accounts, projects, messages_per_month (an integer or unlimited), credential_requests_per_minute, workspace_requests_per_minute", collect, [])
    .addOption(new Option("--reason <text>", "why (kept in the audit row)"))
    .action((workspaceId: string, plan: string, opts: { set: string[]; reason?: string }) =>
      run(async (deps) => {
        const set = await setWorkspacePlan(deps, { workspaceId, plan, overrides: parsePlanOverrides(opts.set), reason: opts.reason ?? null });
        process.stdout.write(`${JSON.stringify({ workspace_id: set.workspaceId, plan: set.plan, overrides: set.overrides, limits: set.limits })}\n`);
        return 0;
      }),
    );
  return workspace;
}
