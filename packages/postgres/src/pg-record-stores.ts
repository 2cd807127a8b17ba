import type { ImportStore, UsageStore } from "@agentq/core";
import { queryStore } from "./pg-query-store.ts";
import { importFingerprintsAdd, importFingerprintsFind, importRowsList, importRowsUpdate, importsFind, importsInsert, importsList, importsReplace, usageByDay, usageInsert, usageLatest, usageTotalsForSessions } from "./queries/records.ts";

/** UsageStore on PostgreSQL (reports only ever inserted). */
export class PgUsageStore extends queryStore({ insert: usageInsert, latest: usageLatest, byDay: usageByDay, totalsForSessions: usageTotalsForSessions }) implements UsageStore {}

/** ImportStore on PostgreSQL (fingerprints unique per project and target in the table's key). */
export class PgImportStore extends queryStore({
  insert: importsInsert, find: importsFind, replace: importsReplace, list: importsList, rows: importRowsList, updateRows: importRowsUpdate,
  fingerprints: importFingerprintsFind, addFingerprint: importFingerprintsAdd,
}) implements ImportStore {}
