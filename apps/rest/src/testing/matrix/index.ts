// Test-only entry point (package export "./testing/matrix"): the isolation matrix for other
// apps' runs of the same service (apps/server runs it over PostgreSQL), and the world it builds,
// which the hostile-input suite reuses to reach real records.
export { describeIsolationMatrix, PATH_FIXTURES } from "./isolation-matrix.contract.ts";
export type { NamedResource } from "./isolation-matrix.contract.ts";
export { A_NAMES, AcceptingTransport, buildWorkspaceRecords, inMemoryMatrixTarget } from "./isolation-world.ts";
export type { MatrixTarget, RecordNames, WorkspaceRecords } from "./isolation-world.ts";
export { plausibleInput } from "./plausible-input.ts";
export { openMatrixSession } from "./person-session.ts";
export type { MatrixPerson } from "./person-session.ts";
export type { RequestClient } from "./route-request.ts";
