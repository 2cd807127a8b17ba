import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { limitAnonymousRequest } from "../rate-limits/anonymous-limits.ts";
import type { Notice } from "./notice.ts";
import { auditStep } from "./notice-lifecycle.ts";
import { parseNoticeSubmission, type NoticeInput } from "./notice-elements.ts";
import { newNoticeToken, noticeTokenHash } from "./notice-token.ts";
import { affectedWorkspaceOf, resolveItems } from "./resolve-items.ts";
import { deliverNoticeMails, receiptMails } from "./notice-mails.ts";

/** The body of 201 POST /v1/notices. */
export interface SubmitNoticeResponse {
  notice: { id: string; kind: Notice["kind"]; state: "received"; received_at: string };
  /** Shown once: with it the notifier reads, supplements and withdraws the notice. */
  status_token: string;
}

/**
 * POST /v1/notices (public, no credential): checks the notice (text only, every element of its
 * kind), stores it as `received` with a new status token (only its keyed hash is kept) and
 * answers 201 whether or not the located items exist: nothing in the answer, its status or its
 * timing tells what exists. Locations that name their workspace are resolved at once, and the
 * receipt is audited in that workspace, withheld from its audit view until disclosure; the rest
 * are resolved by the operator's review. The receipt is mailed to the notifier after the commit.
 * Counted first against the client address's `notice_intake` limit (ANONYMOUS_LIMITS: 5 a minute,
 * shared by every process on the database, whatever SVC_RATE_LIMITER says).
 * @throws DomainError SVC_RATE_LIMITED (details.bucket "notice_intake"), SVC_MALFORMED_REQUEST (details.missing_elements, or details.field).
 */
export async function submitNotice(deps: CoreDeps, p: { input: NoticeInput; clientAddress: string | null; requestId: string | null }): Promise<SubmitNoticeResponse> {
  await limitAnonymousRequest(deps, "notice_intake", p.clientAddress);
  const submission = parseNoticeSubmission(p.input);
  const token = newNoticeToken();
  const publicBaseUrl = requirePublicBaseUrl(deps);
  const notice = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const items = await resolveItems(stores.notices, submission.locations, { publicBaseUrl, cheapOnly: true });
    const created: Notice = {
      id: deps.ids.next(),
      kind: submission.kind,
      state: "received",
      category: submission.category,
      statusTokenHash: noticeTokenHash(deps.secrets.pepper, token),
      submission,
      supplements: [],
      informationRequests: [],
      items,
      affectedWorkspaceId: affectedWorkspaceOf(items),
      decision: null,
      measures: [],
      counterNotice: null,
      restoration: null,
      courtAction: null,
      disclosedAt: null,
      events: [{ at: now, activity: "notice.received", by: "notifier", text: null }],
      receivedAt: now,
      updatedAt: now,
      version: 1,
    };
    await stores.notices.insert({ notice: created });
    await auditStep(deps, stores, created, { now, activity: "notice.received", by: "notifier", details: { category: created.category, received_at: now.toISOString(), locations: submission.locations.length }, requestId: p.requestId });
    return created;
  });
  // The receipt (DSA Art. 16(4)) after the commit, not awaited: the 201 is the receipt already, a
  // slow or failing mail transport must not delay or fail the intake, and whether a mail goes out
  // depends only on the notifier's own address, never on what the notice names.
  void deliverNoticeMails(deps, receiptMails(notice, publicBaseUrl));
  return { notice: { id: notice.id, kind: notice.kind, state: "received", received_at: notice.receivedAt.toISOString() }, status_token: token };
}
