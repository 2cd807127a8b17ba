import type { CoreDeps } from "../deps.ts";
import { DomainError, notFound } from "../errors.ts";
import type { Stores } from "../ports.ts";
import { canTransition, NOTICE_TRANSITIONS, type Notice, type NoticeState } from "./notice.ts";
import { noticeAuditEntry, type NoticeActor } from "./notice-audit.ts";
import type { NoticeMailOutcome } from "./notice-mails.ts";

/** What a step of a notice did: the notice as stored, and what became of the mails it sent. */
export interface NoticeStepOutcome {
  notice: Notice;
  mails: NoticeMailOutcome[];
}

/** The owner's address of a workspace (the statement of reasons and the lifts go there), or null. */
export async function ownerEmailOf(deps: Pick<CoreDeps, "stores">, workspaceId: string | null): Promise<string | null> {
  if (workspaceId === null) return null;
  return (await deps.stores.workspaces.findOwner({ workspaceId }))?.email ?? null;
}

/** One step of a notice: the notice as it will be stored, and what the caller gets back. */
export interface NoticeStep<T> {
  next: Notice;
  result: T;
}

/**
 * Runs one step of a notice in one transaction: reads it, lets `step` decide on it (and write
 * the measures and audit rows of the step through `stores`), then stores the new version by a
 * compare-and-set, so of two concurrent steps one wins and the other is refused without writing
 * anything.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (no such notice), SVC_RESOURCE_CONFLICT (a
 *   concurrent step won), and whatever `step` throws.
 */
export async function runNoticeStep<T>(deps: Pick<CoreDeps, "tx" | "clock">, noticeId: string, step: (stores: Stores, notice: Notice, now: Date) => Promise<NoticeStep<T>>): Promise<T> {
  return deps.tx.run(async (stores) => {
    const notice = await stores.notices.find({ noticeId });
    if (notice === null) throw notFound("Notice");
    const now = deps.clock.now();
    const { next, result } = await step(stores, notice, now);
    const stored: Notice = { ...next, updatedAt: now, version: notice.version + 1 };
    const r = await stores.notices.replace({ notice: stored, expectedVersion: notice.version });
    if (r.kind === "conflict") throw new DomainError("SVC_RESOURCE_CONFLICT", "The notice changed meanwhile; read it again.", { notice_id: noticeId });
    return result;
  });
}

/**
 * The notice moved to `to` with the step recorded in its history.
 * @throws DomainError SVC_RESOURCE_CONFLICT (details.state, details.allowed) when the table of
 *   DESIGN §2b has no such transition.
 */
export function transition(notice: Notice, to: NoticeState, p: { now: Date; activity: string; by: NoticeActor; text?: string | null }): Notice {
  if (!canTransition(notice.state, to)) {
    throw new DomainError("SVC_RESOURCE_CONFLICT", `A notice in state ${notice.state} cannot move to ${to}.`, { notice_id: notice.id, state: notice.state, allowed: [...NOTICE_TRANSITIONS[notice.state]] });
  }
  return recordEvent({ ...notice, state: to }, p);
}

/** The notice with one more step in its history. */
export function recordEvent(notice: Notice, p: { now: Date; activity: string; by: NoticeActor; text?: string | null }): Notice {
  return { ...notice, events: [...notice.events, { at: p.now, activity: p.activity, by: p.by, text: p.text ?? null }] };
}

/** Appends the step's audit row in the affected workspace, when the notice has one. */
export async function auditStep(deps: Pick<CoreDeps, "ids">, stores: Stores, notice: Notice, p: { now: Date; activity: string; by: NoticeActor; details?: Record<string, unknown>; requestId?: string | null }): Promise<void> {
  if (notice.affectedWorkspaceId === null) return;
  await stores.audit.append({ entry: noticeAuditEntry(deps, notice, { workspaceId: notice.affectedWorkspaceId, occurredAt: p.now, activity: p.activity, by: p.by, details: { state: notice.state, ...p.details }, requestId: p.requestId ?? null }) });
}
