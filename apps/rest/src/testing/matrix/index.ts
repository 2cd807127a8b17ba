// Test-only entry point (package export "./testing/matrix"): the isolation matrix for other
// apps' runs of the same service (apps/server runs it over PostgreSQL).
export { describeIsolationMatrix } from "./isolation-matrix.contract.ts";
export { AcceptingTransport, inMemoryMatrixTarget } from "./isolation-world.ts";
export type { MatrixTarget } from "./isolation-world.ts";
export type { RequestClient } from "./route-request.ts";
