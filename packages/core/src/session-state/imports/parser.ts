// The import parsers' common shape (SESSION-STATE §10).

/** What an import row becomes. */
export type ImportTarget = "decision" | "backlog_item" | "lesson";

/** One row a parser found: where it is (1-based lines), what it becomes, its fields, and what is wrong with it. */
export interface ParsedRow {
  lineStart: number;
  lineEnd: number;
  target: ImportTarget;
  /** The record's fields, named as the create route names them (plus import-only ones: status, supersedes_row, ...). */
  parsed: Record<string, unknown>;
  /** Words of the row that identify it (its fingerprint's input besides the target). */
  identity: string;
  errors: { field: string; message: string }[];
}

/** An import parser. */
export interface ImportParser {
  name: string;
  version: number;
  target: ImportTarget;
  description: string;
  example: string;
  /**
   * The rows of `content`, in order. Linear in the content's size; stops once it holds
   * `maxRows + 1` rows (the caller refuses a file past the cap without the parser reading on).
   */
  parse(content: string, filename: string, maxRows?: number): ParsedRow[];
}
