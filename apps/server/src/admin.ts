// Operator commands: `pnpm admin workspace freeze|unfreeze WORKSPACE_ID [--reason TEXT]`. Every
// call of the workspace's credentials gets 403 SVC_FROZEN on the very next request (the
// authenticator re-reads the workspace on every call).
import { setWorkspaceState } from "@agentq/core";
import { runCommand } from "./command.ts";

const USAGE = "usage: pnpm admin workspace freeze|unfreeze WORKSPACE_ID [--reason TEXT]";

const [area, verb, workspaceId, ...rest] = process.argv.slice(2);
if (area !== "workspace" || (verb !== "freeze" && verb !== "unfreeze") || !workspaceId) {
  process.stderr.write(`${USAGE}\n`);
  process.exit(2);
}
const reasonAt = rest.indexOf("--reason");
const reason = reasonAt >= 0 ? (rest[reasonAt + 1] ?? null) : null;

runCommand(async (deps) => {
  const ws = await setWorkspaceState(deps, { workspaceId, state: verb === "freeze" ? "frozen" : "active", reason });
  process.stdout.write(`${JSON.stringify({ workspace_id: ws.id, state: ws.state })}\n`);
  return 0;
});
