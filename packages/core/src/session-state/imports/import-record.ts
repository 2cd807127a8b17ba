import type { ImportTarget } from "./parser.ts";

// The records of a markdown import (SESSION-STATE §10), apart from its use cases so that the
// ports can name them without importing the use cases.

/** Import statuses. */
export const IMPORT_STATUSES = ["previewed", "committed"] as const;
/** Row statuses: after preview, then after commit. */
export const IMPORT_ROW_STATUSES = ["ready", "invalid", "duplicate", "created", "skipped_duplicate", "skipped_invalid"] as const;
/** A row status. */
export type ImportRowStatus = (typeof IMPORT_ROW_STATUSES)[number];

/** An import: one uploaded file, previewed, then maybe committed. */
export interface ImportRecord {
  workspaceId: string;
  id: string;
  projectId: string;
  parser: string;
  parserVersion: number;
  filename: string;
  contentSha256: string;
  status: (typeof IMPORT_STATUSES)[number];
  counts: { rows: number; ready: number; invalid: number; duplicate: number };
  created: number | null;
  skipped: number | null;
  committedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: { aiAccountId: string; friendlyName: string };
}

/** One row of an import. */
export interface ImportRow {
  workspaceId: string;
  importId: string;
  rowNumber: number;
  lineStart: number;
  lineEnd: number;
  target: ImportTarget;
  parsed: Record<string, unknown>;
  fingerprint: string;
  status: ImportRowStatus;
  errors: { field: string; message: string }[];
  existingRecordId: string | null;
  createdRecordId: string | null;
}
