import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import { NOTICE_ACTIONS, type Notice, type NoticeAction } from "./notice.ts";
import { auditStep, ownerEmailOf, recordEvent, runNoticeStep, transition, type NoticeStepOutcome } from "./notice-lifecycle.ts";
import { decisionMails, deliverNoticeMails, informationRequestMails, restorationMails, statementOfReasonsMails, upheldMails } from "./notice-mails.ts";
import { applyMeasures, liftMeasures } from "./notice-measures.ts";
import { NOTICE_LIMITS } from "./notice-elements.ts";
import { assertPlainText } from "./plain-text.ts";
import { affectedWorkspaceOf, resolveItems } from "./resolve-items.ts";

type OperatorDeps = Pick<CoreDeps, "tx" | "clock" | "ids" | "stores" | "mailer"> & { publicBaseUrl?: string };

const baseOf = (deps: { publicBaseUrl?: string }) => requirePublicBaseUrl(deps);

function checkText(text: string, field: string): string {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > NOTICE_LIMITS.longTextChars) throw malformed(`${field} must be 1 to ${NOTICE_LIMITS.longTextChars} characters.`, { field });
  assertPlainText(trimmed, field);
  return trimmed;
}

/**
 * `pnpm admin notices review ID`: the operator takes up a received notice (or one back from the
 * notifier) and every location is resolved afresh, in every workspace. When the notice thereby
 * finds its affected workspace for the first time, its receipt is audited there (withheld from
 * the workspace's audit view until disclosure).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (state).
 */
export async function reviewNotice(deps: OperatorDeps, p: { noticeId: string }): Promise<NoticeStepOutcome> {
  const notice = await runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    const moved = transition(notice, "under_review", { now, activity: "notice.review_started", by: "operator" });
    const items = await resolveItems(stores.notices, notice.submission.locations, { publicBaseUrl: baseOf(deps), cheapOnly: false });
    const next: Notice = { ...moved, items, affectedWorkspaceId: notice.affectedWorkspaceId ?? affectedWorkspaceOf(items) };
    if (notice.affectedWorkspaceId === null && next.affectedWorkspaceId !== null) {
      await auditStep(deps, stores, next, { now, activity: "notice.received", by: "notifier", details: { category: next.category, received_at: next.receivedAt.toISOString(), locations: next.submission.locations.length } });
    }
    await auditStep(deps, stores, next, { now, activity: "notice.review_started", by: "operator" });
    return { next, result: { ...next, updatedAt: now, version: notice.version + 1 } };
  });
  return { notice, mails: [] };
}

/**
 * `pnpm admin notices request-info ID --message TEXT`: asks the notifier for more (the notice
 * waits in needs_information until a supplement or a review); the request is mailed to the notifier.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (state), SVC_MALFORMED_REQUEST (message).
 */
export async function requestNoticeInformation(deps: OperatorDeps, p: { noticeId: string; message: string }): Promise<NoticeStepOutcome> {
  const text = checkText(p.message, "message");
  const notice = await runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    const next = { ...transition(notice, "needs_information", { now, activity: "notice.information_requested", by: "operator", text }), informationRequests: [...notice.informationRequests, { at: now, text }] };
    await auditStep(deps, stores, next, { now, activity: "notice.information_requested", by: "operator" });
    return { next, result: { ...next, updatedAt: now, version: notice.version + 1 } };
  });
  return { notice, mails: await deliverNoticeMails(deps, informationRequestMails(notice, baseOf(deps), text)) };
}

/**
 * `pnpm admin notices decide ID --action A --reason TEXT [--dismiss]`: decides a notice under
 * review. An action other than `none` applies its measure and writes the statement of reasons in
 * one transaction (action_taken), and discloses the notice to the affected workspace: from then
 * on the workspace sees it (GET /v1/notices, its audit view, from the `notice.disclosed` row
 * that tells of the receipt). `none` closes it as no_action, or dismissed with --dismiss
 * (manifestly unfounded or abusive); neither is disclosed. After the commit the decision is
 * mailed to the notifier, and the statement of reasons to the affected workspace's owner.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (state, or nothing located for
 *   the action), SVC_MALFORMED_REQUEST (action, reason).
 */
export async function decideNotice(deps: OperatorDeps, p: { noticeId: string; action: string; reason: string; dismiss?: boolean }): Promise<NoticeStepOutcome> {
  if (!(NOTICE_ACTIONS as readonly string[]).includes(p.action)) throw malformed(`action must be one of ${NOTICE_ACTIONS.join(", ")}.`, { field: "action", allowed: [...NOTICE_ACTIONS] });
  const action = p.action as NoticeAction;
  if (p.dismiss === true && action !== "none") throw malformed("--dismiss goes with --action none.", { field: "dismiss" });
  const reason = checkText(p.reason, "reason");
  const notice = await runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    const outcome = action !== "none" ? "action_taken" : p.dismiss === true ? "dismissed" : "no_action";
    let next = transition(notice, outcome, { now, activity: "notice.decided", by: "operator", text: reason });
    next = { ...next, decision: { outcome, action, reason, decidedAt: now } };
    if (action !== "none") {
      const measures = await applyMeasures(deps, stores, next, { action, now, by: "operator" });
      next = { ...next, measures, disclosedAt: now };
      await auditStep(deps, stores, next, { now, activity: "notice.disclosed", by: "operator", details: { category: next.category, received_at: next.receivedAt.toISOString(), history: next.events.map((e) => ({ at: e.at.toISOString(), activity: e.activity })) } });
    }
    await auditStep(deps, stores, next, { now, activity: "notice.decided", by: "operator", details: { outcome, action, measures: next.measures.map((m) => ({ type: m.type, item_id: m.itemId })) } });
    return { next, result: { ...next, updatedAt: now, version: notice.version + 1 } };
  });
  const owner = notice.disclosedAt === null ? null : await ownerEmailOf(deps, notice.affectedWorkspaceId);
  return { notice, mails: await deliverNoticeMails(deps, [...decisionMails(notice), ...statementOfReasonsMails(notice, baseOf(deps), owner)]) };
}

/**
 * `pnpm admin notices decide ID --uphold --reason TEXT [--court-action REF]`: keeps the measure
 * of a contested notice (upheld). A court action the notifier reported (DMCA 512(g)(2)(C)) is
 * recorded with it: the restoration job never lifts that measure. The owner is told by mail.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (not contested), SVC_MALFORMED_REQUEST.
 */
export async function upholdNotice(deps: OperatorDeps, p: { noticeId: string; reason: string; courtAction?: string | null }): Promise<NoticeStepOutcome> {
  const reason = checkText(p.reason, "reason");
  const reference = p.courtAction === undefined || p.courtAction === null ? null : checkText(p.courtAction, "court_action");
  const notice = await runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    let next = transition(notice, "upheld", { now, activity: "notice.upheld", by: "operator", text: reason });
    if (reference !== null) next = recordEvent({ ...next, courtAction: { recordedAt: now, reference } }, { now, activity: "notice.court_action_recorded", by: "operator", text: reference });
    await auditStep(deps, stores, next, { now, activity: "notice.upheld", by: "operator", details: { reason, court_action: reference !== null } });
    return { next, result: { ...next, updatedAt: now, version: notice.version + 1 } };
  });
  return { notice, mails: await deliverNoticeMails(deps, upheldMails(notice, await ownerEmailOf(deps, notice.affectedWorkspaceId), reason)) };
}

/**
 * Restores a contested notice's measures (restored): by the operator (`pnpm admin notices
 * restore ID --reason TEXT`) or by the restoration job at the end of the DMCA window. The
 * measures still in force are lifted in the same transaction; the owner and the notifier are
 * told by mail.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (not contested), SVC_MALFORMED_REQUEST.
 */
export async function restoreNotice(deps: OperatorDeps, p: { noticeId: string; reason: string; by?: "operator" | "system" }): Promise<NoticeStepOutcome> {
  const reason = checkText(p.reason, "reason");
  const by = p.by ?? "operator";
  const notice = await runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    if (by === "system" && (notice.courtAction !== null || notice.restoration === null || notice.restoration.earliestAt.getTime() > now.getTime())) {
      throw new DomainError("SVC_RESOURCE_CONFLICT", "The notice is not due for restoration.", { notice_id: notice.id });
    }
    let next = transition(notice, "restored", { now, activity: "notice.restored", by, text: reason });
    next = { ...next, measures: await liftMeasures(deps, stores, next, { now, by, reason }) };
    await auditStep(deps, stores, next, { now, activity: "notice.restored", by, details: { reason } });
    return { next, result: { ...next, updatedAt: now, version: notice.version + 1 } };
  });
  return { notice, mails: await deliverNoticeMails(deps, restorationMails(notice, await ownerEmailOf(deps, notice.affectedWorkspaceId), reason)) };
}
