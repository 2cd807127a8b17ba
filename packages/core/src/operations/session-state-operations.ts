import { DECISION_LOG_OPERATIONS } from "./decision-log-operations.ts";
import type { Operation } from "../operation.ts";
import { PROJECT_OPERATIONS } from "./project-operations.ts";
import { BACKLOG_OPERATIONS } from "./backlog-operations.ts";
import { BUILD_SESSION_OPERATIONS } from "./build-session-operations.ts";
import { LESSON_OPERATIONS } from "./lesson-operations.ts";
import { LESSON_CANDIDATE_OPERATIONS } from "./lesson-candidate-operations.ts";
import { RULE_OPERATIONS_LIST } from "./rule-operations.ts";
import { RECORD_OPERATIONS } from "./record-operations.ts";

/** The session-state operations (SESSION-STATE.md), area by area. */
export const SESSION_STATE_OPERATIONS: readonly Operation[] = [...PROJECT_OPERATIONS, ...BUILD_SESSION_OPERATIONS, ...DECISION_LOG_OPERATIONS, ...BACKLOG_OPERATIONS, ...LESSON_OPERATIONS, ...LESSON_CANDIDATE_OPERATIONS, ...RULE_OPERATIONS_LIST, ...RECORD_OPERATIONS];
