// Test-only entry point (package export "./testing/hostile"): requests at every REST route built
// from its schema at the edges of what it documents (DESIGN §2c), for the catalogue-wide
// hostile-input suite (apps/server runs it over PostgreSQL).
export { catalogueRoutes, hostileRequests, plainRoutes } from "./hostile-requests.ts";
export type { HostileRequest, RequestSeeds, RouteCaller, RouteUnderTest } from "./hostile-requests.ts";
export { freeJson, POISONED_TEXT, schemaValue } from "./hostile-values.ts";
export type { SchemaLike } from "./hostile-values.ts";
export { PLAIN_ROUTES } from "../../app.ts";
