export { composeService } from "./compose.ts";
export type { ComposedService } from "./compose.ts";
export { openDatabase } from "./database.ts";
export type { OpenDatabase } from "./database.ts";
export { readEnv } from "./env.ts";
export type { ServerEnv } from "./env.ts";
export { loadSecrets, deriveSecrets } from "./secrets.ts";
export { createLogger } from "./logger.ts";
