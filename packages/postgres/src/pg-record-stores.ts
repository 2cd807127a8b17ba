import type { ImportRecord, ImportRow, ImportStore, UsageReport, UsageStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { importFingerprintsAdd, importFingerprintsFind, importRowsList, importRowsUpdate, importsFind, importsInsert, importsList, importsReplace, usageByDay, usageInsert, usageLatest, usageTotalsForSessions } from "./queries/records.ts";
import type { SqlClient } from "./sql-client.ts";

/** UsageStore on PostgreSQL (reports only ever inserted). */
export class PgUsageStore implements UsageStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { report: UsageReport }) {
    return withPgErrors(() => usageInsert(this.sql, p));
  }
  latest(p: { workspaceId: string; buildSessionId: string }) {
    return withPgErrors(() => usageLatest(this.sql, p));
  }
  byDay(p: { workspaceId: string; projectId: string | null; aiAccountId: string | null; buildSessionId: string | null; since: Date; until: Date }) {
    return withPgErrors(() => usageByDay(this.sql, p));
  }
  totalsForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }) {
    return withPgErrors(() => usageTotalsForSessions(this.sql, p));
  }
}

/** ImportStore on PostgreSQL (fingerprints unique per project and target in the table's key). */
export class PgImportStore implements ImportStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { record: ImportRecord; rows: readonly ImportRow[] }) {
    return withPgErrors(() => importsInsert(this.sql, p));
  }
  find(p: { workspaceId: string; id: string }) {
    return withPgErrors(() => importsFind(this.sql, p));
  }
  replace(p: { record: ImportRecord; expectedVersion: number }) {
    return withPgErrors(() => importsReplace(this.sql, p));
  }
  list(p: { workspaceId: string; projectId: string; status: string | null; parser: string | null; offset: number; limit: number }) {
    return withPgErrors(() => importsList(this.sql, p));
  }
  rows(p: { workspaceId: string; importId: string; status: string | null; offset: number; limit: number | null }) {
    return withPgErrors(() => importRowsList(this.sql, p));
  }
  updateRows(p: { rows: readonly ImportRow[] }) {
    return withPgErrors(() => importRowsUpdate(this.sql, p));
  }
  fingerprints(p: { workspaceId: string; projectId: string; target: string; fingerprints: readonly string[] }) {
    return withPgErrors(() => importFingerprintsFind(this.sql, p));
  }
  addFingerprint(p: { workspaceId: string; projectId: string; target: string; fingerprint: string; recordId: string; importId: string; at: Date }) {
    return withPgErrors(() => importFingerprintsAdd(this.sql, p));
  }
}
