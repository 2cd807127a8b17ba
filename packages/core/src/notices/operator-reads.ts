import type { CoreDeps } from "../deps.ts";
import { malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { NOTICE_STATES, type Notice, type NoticeState } from "./notice.ts";

/** The operator's list: newest first, optionally of one state. */
export async function listNoticesForOperator(deps: Pick<CoreDeps, "stores">, p: { state: string | null; limit: number; after: string | null }): Promise<Notice[]> {
  if (p.state !== null && !(NOTICE_STATES as readonly string[]).includes(p.state)) throw malformed(`state must be one of ${NOTICE_STATES.join(", ")}.`, { field: "state", allowed: [...NOTICE_STATES] });
  return (await deps.stores.notices.list({ state: p.state as NoticeState | null, after: p.after, limit: p.limit })).slice(0, p.limit);
}

/** One notice, everything included (the operator's `show`). @throws DomainError SVC_RESOURCE_NOT_FOUND. */
export async function findNoticeForOperator(deps: Pick<CoreDeps, "stores">, noticeId: string): Promise<Notice> {
  const notice = isUlid(noticeId) ? await deps.stores.notices.find({ noticeId }) : null;
  if (notice === null) throw notFound("Notice");
  return notice;
}

/** The operator's report of a period (transparency reporting, DSA Art. 15 and 24). */
export interface NoticeReport {
  from: string;
  to: string;
  received: number;
  /** Notices received in the period, by kind and category. */
  by_kind_and_category: { kind: Notice["kind"]; category: string; count: number }[];
  /** Their states now. */
  by_state: Partial<Record<NoticeState, number>>;
  /** Of those decided, the median hours from receipt to decision (null when none is decided). */
  median_hours_to_decision: number | null;
  decided: number;
  counter_notices: number;
  restored: number;
}

/** The median of `values` (null when empty). */
export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * `pnpm admin notices report --from DATE --to DATE`: the notices received in [from, to): counts
 * by kind and category and by state, and the median time from receipt to decision.
 * @throws DomainError SVC_MALFORMED_REQUEST when the period is empty or reversed.
 */
export async function noticeReport(deps: Pick<CoreDeps, "stores">, p: { from: Date; to: Date }): Promise<NoticeReport> {
  if (!(p.from.getTime() < p.to.getTime())) throw malformed("The period must start before it ends.", { field: "from" });
  const notices = await deps.stores.notices.listReceivedBetween({ from: p.from, to: p.to });
  const groups = new Map<string, { kind: Notice["kind"]; category: string; count: number }>();
  const byState: Partial<Record<NoticeState, number>> = {};
  const hours: number[] = [];
  for (const n of notices) {
    const key = `${n.kind}/${n.category}`;
    const g = groups.get(key) ?? { kind: n.kind, category: n.category, count: 0 };
    g.count += 1;
    groups.set(key, g);
    byState[n.state] = (byState[n.state] ?? 0) + 1;
    if (n.decision !== null) hours.push((n.decision.decidedAt.getTime() - n.receivedAt.getTime()) / 3_600_000);
  }
  const med = median(hours);
  return {
    from: p.from.toISOString(),
    to: p.to.toISOString(),
    received: notices.length,
    by_kind_and_category: [...groups.values()].sort((a, b) => a.kind.localeCompare(b.kind) || a.category.localeCompare(b.category)),
    by_state: byState,
    median_hours_to_decision: med === null ? null : Math.round(med * 100) / 100,
    decided: hours.length,
    counter_notices: notices.filter((n) => n.counterNotice !== null).length,
    restored: notices.filter((n) => n.state === "restored").length,
  };
}
