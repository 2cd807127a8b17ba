// TEST-ONLY entry of a dispatcher process, spawned (and killed with SIGKILL) by
// dispatcher-crash.pg.test.ts: exactly `src/main.ts`, plus the loopback allowance that lets it
// reach the test's receiver on 127.0.0.1. Production starts `src/main.ts`, which cannot set it.
import { startDispatcherProcess } from "../src/dispatcher-process.ts";
import { readDispatcherEnv } from "../src/env.ts";

const running = startDispatcherProcess(readDispatcherEnv(), { allowLoopbackForTests: true });
process.on("SIGTERM", () => {
  void running.stop().then(() => process.exit(0));
});
