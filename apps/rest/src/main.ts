// Runs the REST API alone (`pnpm --filter @agentq/rest start`): /v1 on HOST:PORT, configured like
// `pnpm start`. No background work runs here: run `pnpm start` or the dispatcher beside it.
// The process wiring belongs to apps/server; it is imported by relative path on purpose:
// @agentq/server depends on @agentq/rest, so a package dependency back would be a cycle.
import { runServiceProcess } from "../../server/src/run-service.ts";

runServiceProcess({ serves: "rest", background: false });
