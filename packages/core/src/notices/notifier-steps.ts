import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { OPEN_NOTICE_STATES } from "./notice.ts";
import { auditStep, ownerEmailOf, recordEvent, runNoticeStep, transition } from "./notice-lifecycle.ts";
import { deliverNoticeMails, restorationMails } from "./notice-mails.ts";
import { liftMeasures } from "./notice-measures.ts";
import { NOTICE_LIMITS } from "./notice-elements.ts";
import { assertPlainText } from "./plain-text.ts";
import { findNoticeWithToken } from "./notice-reads.ts";
import { noticeNotifierView } from "./notice-views.ts";

/**
 * POST /v1/notices/{id}/supplement (Notice-Token): the notifier adds information to an open
 * notice; a notice that needs information goes back under review.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (unknown id or wrong token), SVC_MALFORMED_REQUEST
 *   (text), SVC_RESOURCE_CONFLICT (the notice is decided, or has NOTICE_LIMITS.supplements already).
 */
export async function supplementNotice(deps: CoreDeps, p: { noticeId: string; token: string; text: string; requestId: string | null }): Promise<Record<string, unknown>> {
  assertPlainText(p.text, "text");
  await findNoticeWithToken(deps, p.noticeId, p.token);
  return runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    if (!["received", "under_review", "needs_information"].includes(notice.state)) throw new DomainError("SVC_RESOURCE_CONFLICT", `A notice in state ${notice.state} takes no supplement.`, { notice_id: notice.id, state: notice.state });
    if (notice.supplements.length >= NOTICE_LIMITS.supplements) throw new DomainError("SVC_RESOURCE_CONFLICT", `A notice takes at most ${NOTICE_LIMITS.supplements} supplements.`, { notice_id: notice.id, limit: NOTICE_LIMITS.supplements });
    let next = { ...notice, supplements: [...notice.supplements, { at: now, text: p.text }] };
    next = notice.state === "needs_information" ? transition(next, "under_review", { now, activity: "notice.supplemented", by: "notifier", text: p.text }) : recordEvent(next, { now, activity: "notice.supplemented", by: "notifier", text: p.text });
    await auditStep(deps, stores, next, { now, activity: "notice.supplemented", by: "notifier", requestId: p.requestId });
    return { next, result: noticeNotifierView({ ...next, updatedAt: now }) };
  });
}

/**
 * POST /v1/notices/{id}/withdraw (Notice-Token): the notifier withdraws an open notice; measures
 * it caused are lifted in the same transaction, and the workspace's owner is told by mail.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (unknown id or wrong token), SVC_RESOURCE_CONFLICT (closed notice).
 */
export async function withdrawNotice(deps: CoreDeps, p: { noticeId: string; token: string; requestId: string | null }): Promise<Record<string, unknown>> {
  await findNoticeWithToken(deps, p.noticeId, p.token);
  const { view, lifted } = await runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    if (!OPEN_NOTICE_STATES.includes(notice.state)) throw new DomainError("SVC_RESOURCE_CONFLICT", `A notice in state ${notice.state} cannot be withdrawn.`, { notice_id: notice.id, state: notice.state });
    let next = transition(notice, "withdrawn", { now, activity: "notice.withdrawn", by: "notifier" });
    next = { ...next, measures: await liftMeasures(deps, stores, next, { now, by: "notifier", reason: "notice withdrawn" }) };
    await auditStep(deps, stores, next, { now, activity: "notice.withdrawn", by: "notifier", requestId: p.requestId });
    const lifted = notice.measures.some((m) => m.liftedAt === null) ? { ...next, updatedAt: now } : null;
    return { next, result: { view: noticeNotifierView({ ...next, updatedAt: now }), lifted } };
  });
  // The workspace learns that the measures are lifted (the notifier asked for it: no mail to them).
  if (lifted !== null) await deliverNoticeMails(deps, restorationMails(lifted, await ownerEmailOf(deps, lifted.affectedWorkspaceId), "The notifier withdrew the notice.").filter((m) => m.to === "owner"));
  return view;
}
