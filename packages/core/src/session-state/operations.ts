import { DECISION_LOG_OPERATIONS } from "./decision-log/operations.ts";
import type { Operation } from "../operation.ts";
import { PROJECT_OPERATIONS } from "./projects/operations.ts";
import { BACKLOG_OPERATIONS } from "./backlog/operations.ts";
import { BUILD_SESSION_OPERATIONS } from "./build-sessions/operations.ts";
import { LESSON_OPERATIONS } from "./lessons/operations.ts";
import { LESSON_CANDIDATE_OPERATIONS } from "./lesson-candidates/operations.ts";
import { RULE_OPERATIONS_LIST } from "./rules/operations.ts";
import { USAGE_OPERATIONS } from "./usage/operations.ts";
import { IMPORT_OPERATIONS } from "./imports/operations.ts";

/** The session-state operations (SESSION-STATE.md), record by record in the catalogue's order. */
export const SESSION_STATE_OPERATIONS: readonly Operation[] = [...PROJECT_OPERATIONS, ...BUILD_SESSION_OPERATIONS, ...DECISION_LOG_OPERATIONS, ...BACKLOG_OPERATIONS, ...LESSON_OPERATIONS, ...LESSON_CANDIDATE_OPERATIONS, ...RULE_OPERATIONS_LIST, ...USAGE_OPERATIONS, ...IMPORT_OPERATIONS];
