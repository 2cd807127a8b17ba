import type { CoreDeps } from "../../deps.ts";
import { DomainError, isDomainError, malformed } from "../../errors.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { closingNotes, createBacklogItem } from "../backlog/backlog.ts";
import { chainTipId, correctDecision, recordDecision } from "../decision-log/decision-log.ts";
import { checkMarkdown, checkTags, checkTitle } from "../conventions/fields.ts";
import { createLesson } from "../lessons/lessons.ts";
import type { Project } from "../projects/project.ts";
import { findInProject, projectArchived, resolveProject } from "../conventions/resolve-project.ts";
import { recordChange, actorOf } from "../conventions/record-history.ts";
import { sha256Hex } from "../../encoding/sha256-hex.ts";
import { slugify } from "../text/slug.ts";
import type { ImportRecord, ImportRow, ImportRowStatus } from "./import-record.ts";
import type { ParsedRow } from "./parser.ts";
import { IMPORT_PARSERS, findParser } from "./parsers.ts";

// The markdown import (SESSION-STATE §10): upload parses a file into rows and previews them
// (ready, invalid, duplicate); commit writes every ready row in one transaction; fingerprints,
// unique per project and target, make importing the same file again create nothing.

/** Limits of an import. */
export const IMPORT_LIMITS = { contentBytes: 200 * 1024, rows: 2_000, filenameMax: 255 } as const;

/** The parsers as GET /session-state/import-parsers lists them. */
export function parserList() {
  return IMPORT_PARSERS.map((p) => ({ name: p.name, version: p.version, target: p.target, description: p.description, example: p.example }));
}

const str = (v: unknown) => (typeof v === "string" ? v : undefined);

/** A row's fields checked as the create routes check them; what fails becomes `errors`. */
function validate(row: ParsedRow): { field: string; message: string }[] {
  const errors = [...row.errors];
  const p = row.parsed;
  const check = (field: string, fn: () => unknown) => {
    if (errors.some((e) => e.field === field)) return;
    try {
      fn();
    } catch (e) {
      if (!isDomainError(e)) throw e;
      errors.push({ field, message: e.message });
    }
  };
  check("title", () => checkTitle(str(p["title"]) ?? ""));
  const markdown = row.target === "decision" ? ["decision_md", "context_md", "rationale_md"] : row.target === "backlog_item" ? ["description_md"] : ["body_md", "why_md"];
  for (const f of markdown) check(f, () => checkMarkdown(str(p[f]) ?? "", f, { required: f === "decision_md" || f === "body_md" }));
  if (row.target === "decision") check("tags", () => checkTags(p["tags"] as string[] | undefined));
  if (row.target === "backlog_item") check("labels", () => checkTags(p["labels"] as string[] | undefined, "labels"));
  return errors;
}

/** What upload takes. */
export interface UploadInput {
  project_id?: string;
  parser: string;
  filename: string;
  content: string;
}

/**
 * Parses an uploaded file and stores the preview (201): each row ready, invalid (with errors) or
 * duplicate (its fingerprint already imported in the project, its lesson slug taken, or the same
 * row above in the file; existing_record_id when known).
 * @throws DomainError SVC_MALFORMED_REQUEST (parser, size, rows), SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT.
 */
export async function previewImport(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: UploadInput): Promise<{ record: ImportRecord; rows: ImportRow[] }> {
  const project = await resolveProject(stores, ctx, input.project_id, { forWrite: true });
  const parser = findParser(input.parser);
  if (parser === undefined) throw malformed(`parser must be one of ${IMPORT_PARSERS.map((p) => p.name).join(", ")}.`, { field: "parser" });
  const filename = checkTitle(input.filename, "filename", IMPORT_LIMITS.filenameMax);
  if (new TextEncoder().encode(input.content).length > IMPORT_LIMITS.contentBytes) throw malformed(`content must be at most ${IMPORT_LIMITS.contentBytes} bytes.`, { field: "content", max_bytes: IMPORT_LIMITS.contentBytes });
  // The parser stops at the first row past the cap: a file past it costs no more than one at it.
  const parsed = parser.parse(input.content, filename, IMPORT_LIMITS.rows);
  if (parsed.length > IMPORT_LIMITS.rows) throw malformed(`The file holds more than ${IMPORT_LIMITS.rows} rows.`, { field: "content", max_rows: IMPORT_LIMITS.rows });
  const id = deps.ids.next();
  const at = { workspaceId: project.workspaceId, projectId: project.id };
  const fingerprintOf = (r: ParsedRow) => sha256Hex(`${r.target}\n${r.identity}`);
  const known = new Map<string, string>();
  for (const target of [...new Set(parsed.map((r) => r.target))]) {
    for (const [fp, recordId] of await stores.imports.fingerprints({ ...at, target, fingerprints: parsed.filter((r) => r.target === target).map(fingerprintOf) })) known.set(`${target}\n${fp}`, recordId);
  }
  const seen = new Map<string, number>();
  const rows: ImportRow[] = [];
  for (const [i, r] of parsed.entries()) {
    const fingerprint = fingerprintOf(r);
    const errors = validate(r);
    let existing = known.get(`${r.target}\n${fingerprint}`) ?? null;
    if (existing === null && r.target === "lesson" && errors.length === 0) existing = (await stores.lessons.findBySlug({ ...at, slug: slugify(str(r.parsed["title"]) ?? "") }))?.id ?? null;
    const above = seen.get(`${r.target}\n${fingerprint}`);
    if (above === undefined) seen.set(`${r.target}\n${fingerprint}`, i + 1);
    const status: ImportRowStatus = errors.length > 0 ? "invalid" : existing !== null || above !== undefined ? "duplicate" : "ready";
    rows.push({ workspaceId: project.workspaceId, importId: id, rowNumber: i + 1, lineStart: r.lineStart, lineEnd: r.lineEnd, target: r.target, parsed: r.parsed, fingerprint, status, errors: status === "duplicate" && existing === null ? [{ field: "title", message: `The same row is row ${above ?? 0} of this file.` }] : errors, existingRecordId: existing, createdRecordId: null });
  }
  const now = deps.clock.now();
  const count = (s: ImportRowStatus) => rows.filter((r) => r.status === s).length;
  const record: ImportRecord = {
    workspaceId: project.workspaceId,
    id,
    projectId: project.id,
    parser: parser.name,
    parserVersion: parser.version,
    filename,
    contentSha256: sha256Hex(input.content),
    status: "previewed",
    counts: { rows: rows.length, ready: count("ready"), invalid: count("invalid"), duplicate: count("duplicate") },
    created: null,
    skipped: null,
    committedAt: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: actorOf(ctx),
  };
  await stores.imports.insert({ record, rows });
  await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "import", subjectId: id, eventType: "previewed", oldValue: null, newValue: { parser: parser.name, filename, ...record.counts }, at: now });
  return { record, rows };
}

/**
 * The import as the caller may see it, with its project.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function findImport(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<{ record: ImportRecord; project: Project }> {
  return findInProject(stores, ctx, id, "Import", (p) => stores.imports.find(p));
}

/** Creates the record of one ready row; returns its id. */
async function createRecord(deps: CoreDeps, stores: Stores, ctx: OperationContext, project: Project, imp: ImportRecord, row: ImportRow, createdByRow: ReadonlyMap<number, string>): Promise<string> {
  const p = row.parsed;
  const ref = `${imp.id}#${row.rowNumber}`;
  if (row.target === "decision") {
    const content = {
      title: String(p["title"]),
      decision_md: String(p["decision_md"]),
      context_md: str(p["context_md"]),
      alternatives: p["alternatives"] as { option: string; chosen?: boolean }[] | undefined,
      consequences: p["consequences"] as { good?: string[]; bad?: string[] } | undefined,
      tags: p["tags"] as string[] | undefined,
      ...(str(p["decided_at"]) === undefined ? {} : { decided_at: str(p["decided_at"]) }),
      source: { kind: "import", ref },
    };
    const supersedes = typeof p["supersedes_row"] === "number" ? createdByRow.get(p["supersedes_row"]) : undefined;
    if (supersedes !== undefined) {
      const tip = await chainTipId(stores, ctx, supersedes);
      const rationale = str(p["rationale_md"]) || `Superseded as recorded in ${imp.filename}:${row.lineStart}.`;
      return (await correctDecision(deps, stores, ctx, tip, { ...content, rationale_md: rationale })).entry.id;
    }
    return (await recordDecision(deps, stores, ctx, { ...content, project_id: project.id, rationale_md: str(p["rationale_md"]) })).entry.id;
  }
  if (row.target === "backlog_item") {
    const { item } = await createBacklogItem(deps, stores, ctx, { project_id: project.id, title: String(p["title"]), description_md: str(p["description_md"]), priority: typeof p["priority"] === "number" ? p["priority"] : undefined, labels: p["labels"] as string[] | undefined, kind: str(p["kind"]), skip_triage: true }, { importRow: ref });
    if (p["status"] === "resolved") await closingNotes(deps, stores, ctx, item.id, { outcome: "resolved", notes_md: str(p["closing_note"]) ?? `imported as done from ${imp.filename}:${row.lineStart}` });
    return item.id;
  }
  const { lesson } = await createLesson(deps, stores, ctx, { title: String(p["title"]), body_md: String(p["body_md"]), why_md: str(p["why_md"]) }, { source: { kind: "import", ref, url: null } }, project);
  return lesson.id;
}

/**
 * Commits a previewed import in the caller's transaction: every ready row becomes its record
 * (source import, ref "<import id>#<row>"; a MADR correction corrects the chain of the row it
 * supersedes), its fingerprint is kept; duplicates and invalid rows are skipped. A fingerprint
 * imported meanwhile skips the row as a duplicate. Committing twice: 409 already_committed.
 */
export async function commitImport(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string): Promise<{ record: ImportRecord; rows: ImportRow[] }> {
  const { record, project } = await findImport(stores, ctx, id);
  if (project.state === "archived") throw projectArchived(project.id);
  if (record.status !== "previewed") throw new DomainError("SVC_RESOURCE_CONFLICT", "The import was committed already.", { reason: "already_committed" });
  const rows = await stores.imports.rows({ workspaceId: record.workspaceId, importId: record.id, status: null, offset: 0, limit: null });
  const createdByRow = new Map<number, string>();
  const done: ImportRow[] = [];
  const at = { workspaceId: project.workspaceId, projectId: project.id };
  const order = [...rows].sort((a, b) => (typeof a.parsed["supersedes_row"] === "number" ? 1 : 0) - (typeof b.parsed["supersedes_row"] === "number" ? 1 : 0) || a.rowNumber - b.rowNumber);
  for (const row of order) {
    if (row.existingRecordId !== null) createdByRow.set(row.rowNumber, row.existingRecordId);
    if (row.status !== "ready") {
      done.push({ ...row, status: row.status === "invalid" ? "skipped_invalid" : "skipped_duplicate" });
      continue;
    }
    const taken = (await stores.imports.fingerprints({ ...at, target: row.target, fingerprints: [row.fingerprint] })).get(row.fingerprint);
    if (taken !== undefined) {
      done.push({ ...row, status: "skipped_duplicate", existingRecordId: taken });
      continue;
    }
    const recordId = await createRecord(deps, stores, ctx, project, record, row, createdByRow);
    const added = await stores.imports.addFingerprint({ ...at, target: row.target, fingerprint: row.fingerprint, recordId, importId: record.id, at: deps.clock.now() });
    if (added.kind === "taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "Another import created the same record meanwhile; preview again.", { reason: "concurrent_write" });
    createdByRow.set(row.rowNumber, recordId);
    done.push({ ...row, status: "created", createdRecordId: recordId });
  }
  const now = deps.clock.now();
  const created = done.filter((r) => r.status === "created").length;
  const next: ImportRecord = { ...record, status: "committed", created, skipped: done.length - created, committedAt: now, version: record.version + 1, updatedAt: now };
  if ((await stores.imports.replace({ record: next, expectedVersion: record.version })).kind === "conflict") throw new DomainError("SVC_RESOURCE_CONFLICT", "The import was committed already.", { reason: "already_committed" });
  const sorted = done.sort((a, b) => a.rowNumber - b.rowNumber);
  await stores.imports.updateRows({ rows: sorted });
  await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "import", subjectId: record.id, eventType: "committed", oldValue: { status: "previewed" }, newValue: { status: "committed", created, skipped: next.skipped }, at: now });
  return { record: next, rows: sorted };
}

/** The wire form of an import. */
export function importView(r: ImportRecord) {
  return {
    id: r.id,
    project_id: r.projectId,
    parser: r.parser,
    parser_version: r.parserVersion,
    filename: r.filename,
    content_sha256: r.contentSha256,
    status: r.status,
    counts: r.counts,
    created: r.created,
    skipped: r.skipped,
    committed_at: r.committedAt?.toISOString() ?? null,
    version: r.version,
    created_at: r.createdAt.toISOString(),
    created_by: { ai_account_id: r.createdBy.aiAccountId, friendly_name: r.createdBy.friendlyName },
  };
}

/** The wire form of an import row. */
export function importRowView(r: ImportRow) {
  return { row_number: r.rowNumber, line_start: r.lineStart, line_end: r.lineEnd, target: r.target, parsed: r.parsed, fingerprint: r.fingerprint, status: r.status, errors: r.errors, existing_record_id: r.existingRecordId, created_record_id: r.createdRecordId };
}
