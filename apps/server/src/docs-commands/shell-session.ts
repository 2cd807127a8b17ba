import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";

/** What one command of a shell session did. */
export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One `bash` a documentation block runs in, as a reader's terminal: commands run one after
 * another in the same shell, so variables, `export`s and `cd` carry over. Each command's
 * standard input is /dev/null, so none can eat the next.
 */
export class ShellSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = "";
  private stderr = "";
  private readonly marker = `__agentq_done_${randomBytes(6).toString("hex")}__`;

  constructor(o: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn("bash", ["--noprofile", "--norc"], { cwd: o.cwd, env: o.env, stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.on("data", (c: Buffer) => (this.stdout += c.toString("utf8")));
    this.child.stderr.on("data", (c: Buffer) => (this.stderr += c.toString("utf8")));
  }

  /** Runs `command` and resolves with its exit code and output once it finished (rejects after `timeoutMs`). */
  async run(command: string, timeoutMs = 90_000): Promise<ShellResult> {
    this.stdout = "";
    this.stderr = "";
    const m = this.marker;
    this.child.stdin.write(`{ ${command}\n} </dev/null\n__agentq_rc=$?\nprintf '\\n${m} %s\\n' "$__agentq_rc"\nprintf '\\n${m}\\n' >&2\n`);
    const started = Date.now();
    for (;;) {
      const done = new RegExp(`\\n${m} (\\d+)\\n`).exec(this.stdout);
      if (done !== null && this.stderr.includes(`\n${m}\n`)) {
        return { code: Number(done[1]), stdout: this.stdout.slice(0, done.index), stderr: this.stderr.slice(0, this.stderr.indexOf(`\n${m}\n`)) };
      }
      if (this.child.exitCode !== null) throw new Error(`the shell exited (${this.child.exitCode}) during: ${command}\n${this.stderr}`);
      if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms: ${command}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Ends the shell. */
  close(): void {
    this.child.stdin.end();
    this.child.kill("SIGTERM");
  }
}
