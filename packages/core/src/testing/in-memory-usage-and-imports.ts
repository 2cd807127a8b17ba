import type { ImportStore, ReplaceResult, UsageStore } from "../ports.ts";
import type { ImportRecord, ImportRow } from "../session-state/imports/import-record.ts";
import { NO_USAGE, USAGE_FIELDS, type UsageDayRow, type UsageFigures, type UsageReport } from "../session-state/usage/usage-report.ts";
import type { InMemorySessionStateTables } from "./in-memory-session-state.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/** The rows behind the in-memory usage and import stores. */
export class InMemoryRecordTables {
  /** Keyed by `workspaceId/reportId`. */
  readonly usage = new InMemoryTable<UsageReport>();
  /** Keyed by `workspaceId/importId`. */
  readonly imports = new InMemoryTable<ImportRecord>();
  /** Keyed by `workspaceId/importId/rowNumber`. */
  readonly importRows = new InMemoryTable<ImportRow>();
  /** Keyed by `workspaceId/projectId/target/fingerprint`: the record created. */
  readonly fingerprints = new InMemoryTable<{ recordId: string; importId: string; at: Date }>();
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const add = (a: UsageFigures, b: UsageFigures): UsageFigures => Object.fromEntries(USAGE_FIELDS.map((f) => [f, a[f] + b[f]])) as UsageFigures;
const utcDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

/** In-memory UsageStore (reads the sessions' times from the session-state tables). */
export class InMemoryUsageStore implements UsageStore {
  constructor(
    private readonly tables: InMemoryRecordTables,
    private readonly sessions: InMemorySessionStateTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async insert(p: { report: UsageReport }): Promise<void> {
    this.tables.usage.set(this.tx, `${p.report.workspaceId}/${p.report.id}`, p.report);
  }

  async latest(p: { workspaceId: string; buildSessionId: string }): Promise<UsageReport[]> {
    const newest = new Map<string, UsageReport>();
    for (const r of this.tables.usage.values().filter((x) => x.workspaceId === p.workspaceId && x.buildSessionId === p.buildSessionId).sort(byId)) newest.set(r.model, r);
    return [...newest.values()];
  }

  async byDay(p: { workspaceId: string; projectId: string | null; aiAccountId: string | null; buildSessionId: string | null; since: Date; until: Date }): Promise<UsageDayRow[]> {
    const rows = new Map<string, UsageDayRow>();
    for (const r of this.tables.usage.values()) {
      if (r.workspaceId !== p.workspaceId || r.reportedAt < p.since || r.reportedAt > p.until) continue;
      if ((p.projectId !== null && r.projectId !== p.projectId) || (p.aiAccountId !== null && r.aiAccountId !== p.aiAccountId) || (p.buildSessionId !== null && r.buildSessionId !== p.buildSessionId)) continue;
      const day = utcDay(r.reportedAt);
      const key = `${r.buildSessionId}/${r.model}/${day.toISOString()}`;
      const s = this.sessions.sessions.get(`${r.workspaceId}/${r.buildSessionId}`);
      const row = rows.get(key) ?? { buildSessionId: r.buildSessionId, projectId: r.projectId, aiAccountId: r.aiAccountId, model: r.model, day, figures: { ...NO_USAGE }, session: { startedAt: s?.startedAt ?? r.reportedAt, endedAt: s?.endedAt ?? null, activeSeconds: s?.activeSeconds ?? 0 } };
      rows.set(key, { ...row, figures: add(row.figures, r.delta) });
    }
    return [...rows.values()];
  }

  async totalsForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<UsageFigures> {
    return this.tables.usage
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && p.buildSessionIds.includes(r.buildSessionId))
      .reduce((acc, r) => add(acc, r.delta), { ...NO_USAGE });
  }
}

/** In-memory ImportStore. */
export class InMemoryImportStore implements ImportStore {
  constructor(
    private readonly tables: InMemoryRecordTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async insert(p: { record: ImportRecord; rows: readonly ImportRow[] }): Promise<void> {
    this.tables.imports.set(this.tx, `${p.record.workspaceId}/${p.record.id}`, p.record);
    for (const r of p.rows) this.tables.importRows.set(this.tx, `${r.workspaceId}/${r.importId}/${r.rowNumber}`, r);
  }

  async find(p: { workspaceId: string; id: string }): Promise<ImportRecord | null> {
    return this.tables.imports.get(`${p.workspaceId}/${p.id}`) ?? null;
  }

  async replace(p: { record: ImportRecord; expectedVersion: number }): Promise<ReplaceResult> {
    const key = `${p.record.workspaceId}/${p.record.id}`;
    const current = this.tables.imports.get(key);
    if (current === undefined || current.version !== p.expectedVersion) return { kind: "conflict" };
    this.tables.imports.set(this.tx, key, p.record);
    return { kind: "replaced" };
  }

  async list(p: { workspaceId: string; projectId: string; status: string | null; parser: string | null; offset: number; limit: number }): Promise<ImportRecord[]> {
    return this.tables.imports
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && r.projectId === p.projectId && (p.status === null || r.status === p.status) && (p.parser === null || r.parser === p.parser))
      .sort((a, b) => byId(b, a))
      .slice(p.offset, p.offset + p.limit + 1);
  }

  async rows(p: { workspaceId: string; importId: string; status: string | null; offset: number; limit: number | null }): Promise<ImportRow[]> {
    const rows = this.tables.importRows
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && r.importId === p.importId && (p.status === null || r.status === p.status))
      .sort((a, b) => a.rowNumber - b.rowNumber);
    return p.limit === null ? rows.slice(p.offset) : rows.slice(p.offset, p.offset + p.limit + 1);
  }

  async updateRows(p: { rows: readonly ImportRow[] }): Promise<void> {
    for (const r of p.rows) this.tables.importRows.set(this.tx, `${r.workspaceId}/${r.importId}/${r.rowNumber}`, r);
  }

  async fingerprints(p: { workspaceId: string; projectId: string; target: string; fingerprints: readonly string[] }): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const fp of p.fingerprints) {
      const hit = this.tables.fingerprints.get(`${p.workspaceId}/${p.projectId}/${p.target}/${fp}`);
      if (hit !== undefined) out.set(fp, hit.recordId);
    }
    return out;
  }

  async addFingerprint(p: { workspaceId: string; projectId: string; target: string; fingerprint: string; recordId: string; importId: string; at: Date }): Promise<{ kind: "added" } | { kind: "taken"; recordId: string }> {
    const key = `${p.workspaceId}/${p.projectId}/${p.target}/${p.fingerprint}`;
    const hit = this.tables.fingerprints.get(key);
    if (hit !== undefined) return { kind: "taken", recordId: hit.recordId };
    this.tables.fingerprints.set(this.tx, key, { recordId: p.recordId, importId: p.importId, at: p.at });
    return { kind: "added" };
  }
}
