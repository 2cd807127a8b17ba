export { createRestApp, LOG_KEY_PATH, type RestAppOptions } from "./app.ts";
export type { RestEnv } from "./rest-env.ts";
export type { RestLogger } from "./logger.ts";
export { stderrLogger } from "./logger.ts";
export { buildOpenApiDocument } from "./openapi.ts";
export { versionInfo, type VersionInfo } from "./version.ts";
export { authenticateCaller } from "./people/authenticate-caller.ts";
