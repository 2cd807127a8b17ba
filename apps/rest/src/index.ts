export { createRestApp } from "./app.ts";
export type { RestAppOptions } from "./app.ts";
export type { RestEnv } from "./rest-env.ts";
export type { RestLogger } from "./logger.ts";
export { stderrLogger } from "./logger.ts";
export { buildOpenApiDocument } from "./openapi.ts";
export { versionInfo } from "./version.ts";
export type { VersionInfo } from "./version.ts";
export { MAX_BODY_BYTES, MAX_COMPRESSED_BODY_BYTES, MAX_JSON_DEPTH } from "./body/limits.ts";
