import type { Notice, NoticeMeasure, NoticeSubmission } from "./notice.ts";

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** What anyone sees of a notice: its state and dates, nothing else. */
export interface NoticePublicView {
  id: string;
  kind: Notice["kind"];
  state: Notice["state"];
  received_at: string;
  updated_at: string;
}

/** The public view. */
export function noticePublicView(n: Notice): NoticePublicView {
  return { id: n.id, kind: n.kind, state: n.state, received_at: n.receivedAt.toISOString(), updated_at: n.updatedAt.toISOString() };
}

/** Where to turn after a decision (DSA Art. 17(3)(f), 20, 21; DMCA 512(g)). */
export const REDRESS = {
  notifier:
    "You may ask for the decision to be reviewed by replying with a supplement (POST /v1/notices/{id}/supplement), refer the dispute to a certified out-of-court dispute settlement body (DSA Art. 21), or go to court.",
  workspace:
    "The workspace owner may file a counter-notice (DMCA, 17 U.S.C. 512(g)(3)) or a complaint (DSA Art. 20) with POST /v1/notices/{id}/counter-notice, refer the dispute to a certified out-of-court dispute settlement body (DSA Art. 21), or go to court.",
} as const;

/** The submission as the notifier sent it (wire names). */
function submissionView(s: NoticeSubmission): Record<string, unknown> {
  return {
    kind: s.kind,
    category: s.category,
    ...(s.explanation === null ? {} : { explanation: s.explanation }),
    ...(s.signature === null ? {} : { signature: s.signature }),
    ...(s.copyrightedWork === null ? {} : { copyrighted_work: s.copyrightedWork }),
    ...(s.infringingMaterial === null ? {} : { infringing_material: s.infringingMaterial }),
    locations: s.locations,
    notifier: { name: s.notifier.name, email: s.notifier.email, ...(s.notifier.address === undefined ? {} : { address: s.notifier.address }), ...(s.notifier.phone === undefined ? {} : { phone: s.notifier.phone }) },
    good_faith_statement: s.goodFaithStatement,
    ...(s.kind === "dmca" ? { accuracy_statement: s.accuracyStatement } : {}),
  };
}

const measureView = (m: NoticeMeasure) => ({ type: m.type, item_id: m.itemId, applied_at: m.appliedAt.toISOString(), lifted_at: iso(m.liftedAt) });

/**
 * The statement of reasons given to the affected workspace (DSA Art. 17(3)): the restriction,
 * the facts and circumstances (the operator's reason), that it followed a notice, that no
 * automated means decided it, the ground, and the redress.
 */
export function statementOfReasons(n: Notice): Record<string, unknown> | null {
  const d = n.decision;
  if (d === null || d.outcome !== "action_taken") return null;
  return {
    restriction: n.measures.map((m) => ({ type: m.type, item_id: m.itemId })),
    facts_and_circumstances: d.reason,
    based_on_notice: { id: n.id, kind: n.kind, received_at: n.receivedAt.toISOString() },
    automated_means: false,
    ground: n.kind === "dmca" ? { type: "copyright", legal_basis: "17 U.S.C. 512(c)" } : { type: "illegal_content", category: n.category, legal_basis: "Regulation (EU) 2022/2065, Art. 16" },
    decided_at: d.decidedAt.toISOString(),
    redress: REDRESS.workspace,
  };
}

/** What the notifier sees with the status token: their notice, the steps and the decision. */
export function noticeNotifierView(n: Notice): Record<string, unknown> {
  const d = n.decision;
  return {
    ...noticePublicView(n),
    category: n.category,
    submission: submissionView(n.submission),
    supplements: n.supplements.map((s) => ({ at: s.at.toISOString(), text: s.text })),
    information_requests: n.informationRequests.map((r) => ({ at: r.at.toISOString(), text: r.text })),
    decision: d === null ? null : { outcome: d.outcome, reason: d.reason, decided_at: d.decidedAt.toISOString(), redress: REDRESS.notifier },
    // DMCA 512(g)(2)(B): the notifier gets a copy of the counter-notice. A DSA complaint stays with the operator.
    counter_notice: n.counterNotice === null ? null : { filed_at: n.counterNotice.filedAt.toISOString(), ...(n.kind === "dmca" ? { elements: n.counterNotice.elements } : {}) },
    restoration: n.restoration === null ? null : { earliest_at: n.restoration.earliestAt.toISOString(), latest_at: n.restoration.latestAt.toISOString() },
  };
}

/**
 * What the affected workspace sees once the notice is disclosed to it: the category, the
 * complaint (for DMCA the claimant's name, never a DSA notifier's identity nor anyone's contact
 * details), its located items, the decision with the statement of reasons, the measures, its
 * counter-notice and the restoration window.
 */
export function noticeWorkspaceView(n: Notice, workspaceId: string): Record<string, unknown> {
  const s = n.submission;
  return {
    ...noticePublicView(n),
    category: n.category,
    disclosed_at: iso(n.disclosedAt),
    complaint: n.kind === "dmca" ? { claimant: s.notifier.name, copyrighted_work: s.copyrightedWork, infringing_material: s.infringingMaterial } : { explanation: s.explanation },
    items: n.items.filter((i) => i.resolved !== null && i.resolved.workspaceId === workspaceId).map((i) => ({ type: i.resolved?.itemType, id: i.resolved?.itemId })),
    decision: n.decision === null ? null : { outcome: n.decision.outcome, action: n.decision.action, decided_at: n.decision.decidedAt.toISOString() },
    statement_of_reasons: statementOfReasons(n),
    measures: n.measures.filter((m) => m.workspaceId === workspaceId).map(measureView),
    counter_notice: n.counterNotice === null ? null : { filed_at: n.counterNotice.filedAt.toISOString(), elements: n.counterNotice.elements },
    restoration: n.restoration === null ? null : { earliest_at: n.restoration.earliestAt.toISOString(), latest_at: n.restoration.latestAt.toISOString() },
    court_action: n.courtAction === null ? null : { recorded_at: n.courtAction.recordedAt.toISOString() },
  };
}

/** Everything, for the operator (`pnpm admin notices show`). */
export function noticeOperatorView(n: Notice): Record<string, unknown> {
  return {
    ...noticeNotifierView(n),
    affected_workspace_id: n.affectedWorkspaceId,
    disclosed_at: iso(n.disclosedAt),
    items: n.items.map((i) => ({ location: i.location, resolved: i.resolved === null ? null : { workspace_id: i.resolved.workspaceId, type: i.resolved.itemType, id: i.resolved.itemId } })),
    decision: n.decision === null ? null : { outcome: n.decision.outcome, action: n.decision.action, reason: n.decision.reason, decided_at: n.decision.decidedAt.toISOString() },
    statement_of_reasons: statementOfReasons(n),
    measures: n.measures.map((m) => ({ workspace_id: m.workspaceId, ...measureView(m) })),
    counter_notice: n.counterNotice === null ? null : { filed_at: n.counterNotice.filedAt.toISOString(), filed_by: n.counterNotice.filedBy, elements: n.counterNotice.elements },
    court_action: n.courtAction === null ? null : { recorded_at: n.courtAction.recordedAt.toISOString(), reference: n.courtAction.reference },
    history: n.events.map((e) => ({ at: e.at.toISOString(), activity: e.activity, by: e.by, text: e.text })),
  };
}

/** One line of the operator's list. */
export function noticeListLine(n: Notice): Record<string, unknown> {
  return { ...noticePublicView(n), category: n.category, affected_workspace_id: n.affectedWorkspaceId, restoration_earliest_at: iso(n.restoration?.earliestAt ?? null) };
}
