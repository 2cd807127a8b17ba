import { BACKLOG_CHECKLIST } from "./parser-backlog-checklist.ts";
import { DECISIONS_LOG } from "./parser-decisions-log.ts";
import { DECISIONS_MADR } from "./parser-decisions-madr.ts";
import { LESSONS_LIST } from "./parser-lessons-list.ts";
import type { ImportParser } from "./parser.ts";

/** Every import parser, by name (GET /session-state/import-parsers lists them in this order). */
export const IMPORT_PARSERS: readonly ImportParser[] = [DECISIONS_MADR, DECISIONS_LOG, BACKLOG_CHECKLIST, LESSONS_LIST];

/** The parser with that name, or undefined. */
export function findParser(name: string): ImportParser | undefined {
  return IMPORT_PARSERS.find((p) => p.name === name);
}
