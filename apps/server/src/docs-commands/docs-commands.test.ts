import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../testing/spawn-server.ts";
import { COMMAND_CHECKS } from "./command-checks.ts";
import { documentedCommands, logicalCommands } from "./documented-commands.ts";

describe("the documented commands", () => {
  const documented = documentedCommands(REPO_ROOT);

  it("each has a check in command-checks.ts (run by docs-commands.process.test.ts, or not run with a reason)", () => {
    const missing = documented.filter((c) => COMMAND_CHECKS[c.key] === undefined).map((c) => `${c.file}: ${c.key}`);
    expect(missing, "documented commands without a check: add each to apps/server/src/docs-commands/command-checks.ts").toEqual([]);
  });

  it("has no check for a command the docs no longer show", () => {
    const shown = new Set(documented.map((c) => c.key));
    expect(Object.keys(COMMAND_CHECKS).filter((k) => !shown.has(k))).toEqual([]);
  });

  it("gives every command that is not run a reason", () => {
    for (const check of Object.values(COMMAND_CHECKS)) if (check.kind === "not-run") expect(check.reason.length).toBeGreaterThan(20);
  });

  it("reads README.md, docs/*.md and the packages' READMEs", () => {
    const files = new Set(documented.map((c) => c.file));
    for (const f of ["README.md", "docs/guard-rails.md", "apps/cli/README.md"]) expect(files.has(f)).toBe(true);
    for (const f of files) expect(existsSync(join(REPO_ROOT, f))).toBe(true);
  });
});

describe("logicalCommands (how a shell reads a block)", () => {
  it("joins continuations and open quotes, drops comments and blank lines, collapses spaces", () => {
    expect(
      logicalCommands([
        "# a comment",
        "",
        "pnpm start &        # wait for it",
        "curl -s $B/x \\",
        "  -d '{\"a\":1,",
        "       \"b\":\"# not a comment\"}'",
        "echo 'it''s' # done",
      ]),
    ).toEqual(["pnpm start &", "curl -s $B/x -d '{\"a\":1,\n       \"b\":\"# not a comment\"}'", "echo 'it''s'"]);
  });
});
