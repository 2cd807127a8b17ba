// Runs the MCP endpoint alone (`tsx apps/mcp/src/main.ts`): /mcp and the protected-resource
// metadata on HOST:PORT, configured like `pnpm start`. No background work runs here.
// The process wiring belongs to apps/server; it is imported by relative path on purpose:
// @agentq/server depends on @agentq/mcp, so a package dependency back would be a cycle.
import { runServiceProcess } from "../../server/src/run-service.ts";

runServiceProcess({ serves: "mcp", background: false });
