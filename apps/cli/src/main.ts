// The composition root of the `agentq` binary: the real process streams and environment.
import { run } from "./run.ts";

process.exitCode = await run(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin, stdoutStream: process.stdout });
