// The standalone dispatcher: `pnpm --filter @agentq/dispatcher start` (DATABASE_URL and the
// server's SVC_SECRET_KEY) delivers the webhook outbox and runs the background maintenance, next
// to or instead of the dispatcher inside `pnpm start`. Any number may run against one database.
import { startDispatcherProcess } from "./dispatcher-process.ts";
import { readDispatcherEnv } from "./env.ts";

try {
  const running = startDispatcherProcess(readDispatcherEnv());
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.logger.info({ signal }, "dispatcher stopping");
    running.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
