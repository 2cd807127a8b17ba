// Test support for running the real server process, exported as "@agentq/server/testing" (the
// fault-injection run in tooling/faults uses it).
export { createScratchDatabase } from "./scratch-database.ts";
export type { ScratchDatabase } from "./scratch-database.ts";
export { bootstrapWorkspace, REPO_ROOT, runPnpm, runServerCommand, serverEnv, spawnServer, stopProcessGroup } from "./spawn-server.ts";
export type { SpawnedServer } from "./spawn-server.ts";
