// `pnpm admin ...`: the operator's commands, against the database `pnpm start` uses, whether or
// not the server runs. Usage errors exit 2; a refused action prints `CODE: message` and exits 1.
import { Command } from "commander";
import { runCommand } from "../command.ts";
import { workspaceCommand } from "./workspace-commands.ts";
import { noticesCommand } from "./notice-commands.ts";

const program = new Command("pnpm admin")
  .description("agentq operator commands")
  .configureOutput({ writeErr: (text) => process.stderr.write(text), writeOut: (text) => process.stdout.write(text) });
program.addCommand(workspaceCommand(runCommand));
program.addCommand(noticesCommand(runCommand));

// Every command, nested ones included, reports usage errors here (exit 2) rather than exiting itself.
const throwOnUsageError = (command: Command): void => {
  command.exitOverride().showHelpAfterError();
  for (const sub of command.commands) throwOnUsageError(sub);
};
throwOnUsageError(program);

try {
  program.parse(process.argv.slice(2), { from: "user" });
} catch (error) {
  const code = (error as { exitCode?: number; code?: string }).code;
  process.exit(code === "commander.helpDisplayed" || code === "commander.version" ? 0 : 2);
}
