import { Type } from "@sinclair/typebox";
import { parseEnum } from "../conventions/fields.ts";
import { IMPORT_ROW_STATUSES, IMPORT_STATUSES } from "./import-record.ts";
import { IMPORT_LIMITS, commitImport, findImport, importRowView, importView, parserList, previewImport } from "./imports.ts";
import { IMPORT_PARSERS } from "./parsers.ts";
import { resolveProject } from "../conventions/resolve-project.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { offsetPage } from "../../cursors/paged-list.ts";
import { CreatedBySchema, CursorField, IdField, LimitField, Nullable, PageOf, ProjectIdField, Timestamp } from "../conventions/operation-fields.ts";

// The markdown import (SESSION-STATE §10).

const ImportSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the import." }),
    project_id: Type.String(),
    parser: Type.String(),
    parser_version: Type.Integer(),
    filename: Type.String(),
    content_sha256: Type.String(),
    status: Type.Union(IMPORT_STATUSES.map((s) => Type.Literal(s))),
    counts: Type.Object({ rows: Type.Integer(), ready: Type.Integer(), invalid: Type.Integer(), duplicate: Type.Integer() }),
    created: Nullable(Type.Integer({ description: "Records created by the commit." })),
    skipped: Nullable(Type.Integer()),
    committed_at: Nullable(Timestamp()),
    version: Type.Integer(),
    created_at: Timestamp(),
    created_by: CreatedBySchema,
  },
  { description: "A markdown import: previewed, then committed once." },
);
const ImportRowSchema = Type.Object({
  row_number: Type.Integer(),
  line_start: Type.Integer(),
  line_end: Type.Integer(),
  target: Type.String({ description: "decision, backlog_item or lesson." }),
  parsed: Type.Record(Type.String(), Type.Unknown(), { description: "The record's fields as read from the file." }),
  fingerprint: Type.String(),
  status: Type.Union(IMPORT_ROW_STATUSES.map((s) => Type.Literal(s))),
  errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
  existing_record_id: Nullable(Type.String({ description: "The record a duplicate row stands for." })),
  created_record_id: Nullable(Type.String()),
});
const ImportPath = { import_id: IdField("ULID of the import.") };

const parsersOp = defineSessionStateRead({
  name: "list_import_parsers",
  summary: "The markdown import's parsers: name, version, what each creates, its format and an example.",
  http: { path: "/v1/session-state/import-parsers" },
  input: Type.Object({}),
  output: Type.Array(Type.Object({ name: Type.String(), version: Type.Integer(), target: Type.String(), description: Type.String(), example: Type.String() })),
  handler: async () => ({ body: parserList() }),
});

const uploadOp = defineSessionStateWrite({
  name: "upload_import",
  summary: "Upload a DECISIONS.md, BACKLOG.md, LESSONS.md or MADR file with a parser: a preview with a status per row (ready, invalid, duplicate); nothing is created until commit.",
  http: { method: "POST", path: "/v1/session-state/imports/upload" },
  input: Type.Object({
    project_id: ProjectIdField,
    parser: Type.Union(IMPORT_PARSERS.map((p) => Type.Literal(p.name))),
    filename: Type.String({ minLength: 1, maxLength: IMPORT_LIMITS.filenameMax }),
    content: Type.String({ description: "The file, UTF-8, up to 200 KB and 2,000 rows." }),
  }),
  output: ImportSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: importView((await previewImport(deps, stores, ctx, input)).record) }),
});

const listOp = defineSessionStateRead({
  name: "list_imports",
  summary: "A project's imports, newest first (status, parser).",
  http: { path: "/v1/session-state/imports", query: ["project_id", "status", "parser", "limit", "cursor"] },
  input: Type.Object({ project_id: ProjectIdField, status: Type.Optional(Type.String()), parser: Type.Optional(Type.String()), limit: LimitField, cursor: CursorField }),
  output: PageOf(ImportSchema, "A page of imports."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    const status = parseEnum(input.status, IMPORT_STATUSES, "status");
    const parser = parseEnum(input.parser, IMPORT_PARSERS.map((p) => p.name), "parser");
    const body = await offsetPage(deps, ctx, { resource: "imports", filters: { project: project.id, status, parser }, limit: input.limit, cursor: input.cursor }, (offset, limit) => deps.stores.imports.list({ workspaceId: project.workspaceId, projectId: project.id, status, parser, offset, limit }), importView);
    return { body };
  },
});

const getOp = defineSessionStateRead({
  name: "get_import",
  summary: "Read an import: its parser, file, status and counts.",
  http: { path: "/v1/session-state/imports/{import_id}" },
  input: Type.Object(ImportPath),
  output: ImportSchema,
  handler: async (deps, ctx, input) => ({ body: importView((await findImport(deps.stores, ctx, input.import_id)).record) }),
});

const rowsOp = defineSessionStateRead({
  name: "list_import_rows",
  summary: "An import's rows by number: lines, target, parsed fields, fingerprint, status (ready, invalid, duplicate; after commit created, skipped_duplicate, skipped_invalid), errors, the record a duplicate stands for or a row created.",
  http: { path: "/v1/session-state/imports/{import_id}/rows", query: ["status", "limit", "cursor"] },
  input: Type.Object({ ...ImportPath, status: Type.Optional(Type.String()), limit: LimitField, cursor: CursorField }),
  output: PageOf(ImportRowSchema, "A page of rows."),
  async handler(deps, ctx, input) {
    const { record } = await findImport(deps.stores, ctx, input.import_id);
    const status = parseEnum(input.status, IMPORT_ROW_STATUSES, "status");
    const body = await offsetPage(deps, ctx, { resource: "import-rows", filters: { import: record.id, status }, limit: input.limit, cursor: input.cursor }, (offset, limit) => deps.stores.imports.rows({ workspaceId: record.workspaceId, importId: record.id, status, offset, limit }), importRowView);
    return { body };
  },
});

const commitOp = defineSessionStateWrite({
  name: "commit_import",
  summary: "Commit a previewed import: every ready row becomes its record in one transaction (source import), the others are skipped; committing twice gives 409; importing the same file again creates nothing.",
  http: { method: "POST", path: "/v1/session-state/imports/{import_id}/commit" },
  input: Type.Object(ImportPath),
  output: ImportSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: importView((await commitImport(deps, stores, ctx, input.import_id)).record) }),
});

/** The markdown-import operations (SESSION-STATE §10); fixed paths before `{import_id}`. */
export const IMPORT_OPERATIONS = [parsersOp, uploadOp, listOp, getOp, rowsOp, commitOp];
