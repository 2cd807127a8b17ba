import { Type, type Static } from "@sinclair/typebox";
import type { CoreDeps } from "../deps.ts";
import { DomainError, notFound } from "../errors.ts";
import type { Notice } from "./notice.ts";
import { restorationWindow } from "./business-days.ts";
import { auditStep, runNoticeStep, transition, type NoticeStepOutcome } from "./notice-lifecycle.ts";
import { counterNoticeMails, deliverNoticeMails } from "./notice-mails.ts";
import { NOTICE_LIMITS } from "./notice-elements.ts";
import { assertPlainText } from "./plain-text.ts";
import { noticeWorkspaceView } from "./notice-views.ts";
import type { Principal } from "../access/model.ts";
import { requireStepUp } from "../people/step-up.ts";

const short = (description: string) => Type.String({ minLength: 1, maxLength: NOTICE_LIMITS.shortTextChars, description });

/**
 * The body of POST /v1/notices/{id}/counter-notice: for a DMCA notice the elements of
 * 17 U.S.C. 512(g)(3); for a DSA notice a complaint (Art. 20) with its explanation. All optional
 * in shape, so a missing element is named in details.missing_elements.
 */
export const COUNTER_NOTICE_INPUT_SCHEMA = Type.Object(
  {
    signature: Type.Optional(short("(A) Your physical or electronic signature.")),
    material: Type.Optional(Type.String({ minLength: 1, maxLength: NOTICE_LIMITS.longTextChars, description: "(B) The material removed and where it appeared before." })),
    mistake_statement: Type.Optional(Type.Boolean({ description: "(C) Under penalty of perjury, a good faith belief that the material was removed by mistake or misidentification." })),
    name: Type.Optional(short("(D) Your name.")),
    address: Type.Optional(short("(D) Your address.")),
    phone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "(D) Your telephone number." })),
    jurisdiction_consent: Type.Optional(Type.Boolean({ description: "(D) Consent to the jurisdiction of the Federal District Court (for an address outside the US, any judicial district where the service may be found), and to accept service of process from the notifier." })),
    explanation: Type.Optional(Type.String({ minLength: 1, maxLength: NOTICE_LIMITS.longTextChars, description: "DSA: why the decision is wrong (a complaint, Art. 20)." })),
  },
  { additionalProperties: false },
);
/** The body of a counter-notice. */
export type CounterNoticeInput = Static<typeof COUNTER_NOTICE_INPUT_SCHEMA>;

const DMCA_ELEMENTS = ["signature", "material", "mistake_statement", "name", "address", "phone", "jurisdiction_consent"] as const;

/** The elements of a counter-notice for `kind`, checked; a false statement counts as missing. */
function counterElements(kind: Notice["kind"], input: CounterNoticeInput): Record<string, string | boolean> {
  assertPlainText(input, "");
  if (kind === "dsa") {
    if (input.explanation === undefined) throw new DomainError("SVC_MALFORMED_REQUEST", "A complaint needs its explanation.", { missing_elements: ["explanation"] });
    return { explanation: input.explanation };
  }
  const missing = DMCA_ELEMENTS.filter((e) => input[e] === undefined || input[e] === false);
  if (missing.length > 0) throw new DomainError("SVC_MALFORMED_REQUEST", `The counter-notice lacks required elements: ${missing.join(", ")}.`, { missing_elements: missing });
  return Object.fromEntries(DMCA_ELEMENTS.map((e) => [e, input[e] as string | boolean]));
}

/**
 * POST /v1/notices/{id}/counter-notice: the affected workspace's owner contests a decision that
 * took action (action_taken -> contested). For a DMCA notice the restoration window opens 10
 * business days later and closes 14 business days later (17 U.S.C. 512(g)(2)(C)): the
 * restoration job lifts the measure then unless a court action was recorded, and the notifier
 * is mailed a copy with that date. A DSA complaint goes to the operator, who restores or upholds.
 * Who may file (the owner, with a fresh step-up) is `fileCounterNoticeAsOwner`'s rule; this checks
 * that the notice was disclosed to `workspaceId` (the operator records one received by mail here).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (not a notice disclosed to the workspace),
 *   SVC_RESOURCE_CONFLICT (not action_taken), SVC_MALFORMED_REQUEST (details.missing_elements).
 */
export async function fileCounterNotice(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "mailer">, p: { noticeId: string; workspaceId: string; filedBy: string; input: CounterNoticeInput; requestId: string | null }): Promise<NoticeStepOutcome> {
  const notice = await runNoticeStep(deps, p.noticeId, async (stores, notice, now) => {
    if (notice.affectedWorkspaceId !== p.workspaceId || notice.disclosedAt === null) throw notFound("Notice");
    const elements = counterElements(notice.kind, p.input);
    let next = transition(notice, "contested", { now, activity: "notice.contested", by: "owner" });
    next = { ...next, counterNotice: { filedAt: now, filedBy: p.filedBy, elements }, restoration: notice.kind === "dmca" ? restorationWindow(now) : null };
    await auditStep(deps, stores, next, {
      now,
      activity: "notice.contested",
      by: "owner",
      requestId: p.requestId,
      details: { filed_by: p.filedBy, ...(next.restoration === null ? {} : { restoration_earliest_at: next.restoration.earliestAt.toISOString(), restoration_latest_at: next.restoration.latestAt.toISOString() }) },
    });
    return { next, result: { ...next, updatedAt: now, version: notice.version + 1 } };
  });
  // DMCA 512(g)(2)(B): the notifier gets a copy and the date the material comes back.
  return { notice, mails: await deliverNoticeMails(deps, counterNoticeMails(notice)) };
}

/**
 * POST /v1/notices/{id}/counter-notice as a person calls it: only the workspace's owner, signed
 * in with a fresh MFA step-up (DESIGN §2b), files the counter-notice for their workspace, as
 * themselves. Returns the notice as the workspace sees it.
 * @throws DomainError SVC_TIER_INSUFFICIENT (a credential, or a person who is not an owner),
 *   SVC_STEP_UP_REQUIRED (no MFA, or no step-up in the last five minutes), and the refusals of
 *   `fileCounterNotice`.
 */
export async function fileCounterNoticeAsOwner(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "mailer">, principal: Principal, p: { noticeId: string; input: CounterNoticeInput; requestId: string | null }): Promise<Record<string, unknown>> {
  const actor = requireStepUp(principal, deps.clock.now());
  if (actor.person.role !== "owner") throw new DomainError("SVC_TIER_INSUFFICIENT", "Only an owner of the workspace may file a counter-notice.", { role: actor.person.role });
  const { notice } = await fileCounterNotice(deps, { noticeId: p.noticeId, workspaceId: actor.workspace.id, filedBy: actor.person.id, input: p.input, requestId: p.requestId });
  return noticeWorkspaceView(notice, actor.workspace.id);
}
