export { createRestApp, LOG_KEY_PATH } from "./app.ts";
export type { RestAppOptions } from "./app.ts";
export type { RestEnv } from "./rest-env.ts";
export type { RestLogger } from "./logger.ts";
export { stderrLogger } from "./logger.ts";
export { buildOpenApiDocument } from "./openapi.ts";
export { versionInfo } from "./version.ts";
export type { VersionInfo } from "./version.ts";
export { authenticateCaller } from "./people/authenticate-caller.ts";
