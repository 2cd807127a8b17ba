// The audit row each session-state mutation writes: every mutation of the catalogue must be
// listed in one of these (the audit tests check both ways).

/** Projects, build sessions, the decision log and the backlog (SESSION-STATE §2-5). */
export const RECORDS_AUDITED: Readonly<Record<string, string>> = {
  create_project: "project.created",
  update_project: "project.updated",
  archive_project: "project.archived",
  unarchive_project: "project.unarchived",
  set_default_project: "project.set_default",
  record_decision: "decision.recorded",
  correct_decision: "decision.corrected",
  amend_decision_source: "decision.source_amended",
  start_build_session: "build_session.started",
  ping_build_session: "build_session.pinged",
  put_build_session_current_state: "build_session.current_state_replaced",
  put_build_session_prs: "build_session.prs_replaced",
  prepend_build_session_lead: "build_session.lead_prepended",
  end_build_session: "build_session.ended",
  continue_build_session: "build_session.continued",
  create_backlog_item: "backlog_item.created",
  triage_backlog_item: "backlog_item.triaged",
  assign_backlog_item: "backlog_item.assigned",
  reassign_backlog_item: "backlog_item.reassigned",
  reprioritize_backlog_item: "backlog_item.reprioritized",
  amend_backlog_item: "backlog_item.amended",
  close_backlog_item: "backlog_item.resolved",
  acknowledge_backlog_staleness: "backlog_item.staleness_acknowledged",
};

/** Lessons, candidates, rules (SESSION-STATE §6-8). */
export const LEARNING_AUDITED: Readonly<Record<string, string>> = {
  create_lesson: "lesson.created",
  set_lesson_status: "lesson.status_changed",
  observe_lesson: "lesson.observed",
  delete_lesson: "lesson.deleted",
  detect_lesson_candidates: "lesson_candidate.detected",
  promote_lesson_candidate: "lesson_candidate.promoted",
  reject_lesson_candidate: "lesson_candidate.rejected",
  supersede_lesson_candidate: "lesson_candidate.superseded",
  observe_lesson_candidate: "lesson_candidate.evidence_added",
  derive_rule: "rule.derived",
  enrich_rule: "rule.enriched",
  reenrich_rule: "rule.reenriched",
  archive_rule: "rule.archived",
  upload_import: "import.previewed",
  commit_import: "import.committed",
};
