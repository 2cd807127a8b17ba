import type { Operation } from "@agentq/core";
import { Value } from "@sinclair/typebox/value";
import { directiveTo } from "../rest-scenario.ts";
import type { WorkspaceRecords } from "./isolation-world.ts";

/**
 * Values by input field name, aimed at workspace `a` wherever the field names a record (so a
 * cross-workspace call is as close as B can get to touching A's data), plausible otherwise.
 * Used for any operation that has a field of that name, required or not.
 */
function knownFields(a: WorkspaceRecords): Record<string, unknown> {
  return {
    ai_account_id: a.worker.id,
    message_id: a.leasedMessageId,
    // Every message starts a thread of its own (DESIGN §2c): A's leased message names one.
    thread_id: a.leasedMessageId,
    lease_id: a.leaseId,
    version: 1,
    overlap_window: "PT1S",
    visibility_timeout: "PT30S",
    friendly_name: "mallory-q7",
    url: "https://mallory-q7.example.com/in",
    name: "mallory-q7",
    tier: "operational",
    scopes: ["send"],
    outcome_summary: "done",
    reason: "no",
    build_session_id: a.sessionId,
    chain_root_id: a.sessionId,
    discovered_from_id: a.backlogItemId,
    duplicate_of_id: a.backlogItemId,
    assignee_ai_account_id: a.worker.id,
    lesson_id: a.lessonId,
    into_lesson_id: a.lessonId,
    superseded_by_id: a.lessonId,
    source_lesson_id: a.lessonId,
    candidate_id: a.candidateId,
    supersedes_rule_id: a.ruleId,
    project_id: a.projectId,
  };
}

/** Input fields (top level, outside the path) that the field table aims at one of A's records. */
export const AIMED_FIELDS: readonly string[] = [
  "ai_account_id", "message_id", "thread_id", "lease_id", "build_session_id", "chain_root_id", "discovered_from_id", "duplicate_of_id", "assignee_ai_account_id",
  "lesson_id", "into_lesson_id", "superseded_by_id", "source_lesson_id", "candidate_id", "supersedes_rule_id", "project_id",
];

/**
 * Per-operation inputs the field table cannot derive (nested shapes, semantics). Keyed by
 * operation name; merged over the derived input.
 */
const OVERRIDES: Readonly<Record<string, (a: WorkspaceRecords) => Record<string, unknown>>> = {
  send: (a) => directiveTo(a.worker.name),
  validate: (a) => directiveTo(a.worker.name),
  // B's own worker (isolation-world's B_NAMES): the name resolves in B, so the message is what is refused.
  hand_off: () => ({ to: { friendly_name: "beta-worker-k3" }, note: "B says so" }),
  ack_batch: (a) => ({ items: [{ message_id: a.leasedMessageId, lease_id: a.leaseId }] }),
  publish_policy: () => ({ name: "mallory-q7", body: "B's policy." }),
  create_project: () => ({ name: "mallory-q7" }),
  record_decision: () => ({ title: "mallory-q7", decision_md: "B's decision." }),
  correct_decision: () => ({ decision_md: "B's correction.", rationale_md: "B says so." }),
  amend_decision_source: () => ({ source: { kind: "manual", ref: "mallory-q7" }, reason: "B says so" }),
  search_decisions: () => ({ q: "alpha" }),
  start_build_session: () => ({ title: "mallory-q7" }),
  create_backlog_item: () => ({ title: "mallory-q7" }),
  triage_backlog_item: (a) => ({ decision: "duplicate", duplicate_of_id: a.backlogItemId }),
  put_build_session_current_state: () => ({ focus: "", next_steps: [], blockers: [], open_questions: [], files_in_flight: [], notes_md: "" }),
  put_build_session_prs: () => ({ prs: [] }),
  prepend_build_session_lead: () => ({ text: "mallory-q7" }),
  reprioritize_backlog_item: () => ({ priority: 0 }),
  reassign_backlog_item: (a) => ({ assignee_ai_account_id: a.worker.id, reason: "B says so" }),
  acknowledge_backlog_staleness: () => ({ reason: "B says so" }),
  create_lesson: () => ({ title: "mallory-q7", body_md: "B's lesson." }),
  get_lesson_by_slug: () => ({ slug: "mallory-q7" }),
  get_rule_by_slug: () => ({ slug: "mallory-q7" }),
  set_lesson_status: (a) => ({ status: "superseded", superseded_by_id: a.lessonId, reason: "B says so" }),
  observe_lesson: () => ({ note: "B was here" }),
  observe_lesson_candidate: () => ({ note: "B was here" }),
  supersede_lesson_candidate: (a) => ({ lesson_id: a.lessonId, reason: "B says so" }),
  reject_lesson_candidate: () => ({ reason: "B says so" }),
  archive_rule: () => ({ reason: "B says so" }),
  find_applicable_rules: () => ({ paths: ["alpha/x.ts"], operations: ["modify"] }),
  upload_import: () => ({ parser: "lessons-list", filename: "LESSONS.md", content: "## mallory-q7\nB's lesson." }),
  invite_person: () => ({ email: "mallory-q7@example.test", role: "viewer" }),
  change_person_role: () => ({ role: "viewer" }),
};

/**
 * A minimal valid input of `op` (path parameters excluded: the caller fills the path) aimed at
 * workspace `a`'s records: every field the table knows (a credential's project restriction is
 * aimed at a's project too), every other required field from TypeBox's `Value.Create`
 * (defaults, minimal values), then the operation's override.
 */
export function plausibleInput(op: Operation, a: WorkspaceRecords): Record<string, unknown> {
  const known = knownFields(a);
  const required = new Set(op.input.required ?? []);
  const input: Record<string, unknown> = {};
  for (const [field, schema] of Object.entries(op.input.properties)) {
    if (field in known) input[field] = known[field];
    else if (required.has(field)) {
      try {
        input[field] = Value.Create(schema);
      } catch {
        // No value derivable (pattern, format): the override must give one; the caller checks.
      }
    }
  }
  return { ...input, ...(OVERRIDES[op.name]?.(a) ?? {}) };
}
