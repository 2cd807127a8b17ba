export { composeService } from "./compose.ts";
export type { ComposedService } from "./compose.ts";
export { runService, runServiceProcess } from "./run-service.ts";
export type { ServedInterfaces } from "./run-service.ts";
