import type { CoreDeps } from "../deps.ts";
import { isDomainError } from "../errors.ts";
import { restoreNotice } from "./operator-steps.ts";

/** The reason the restoration job gives. */
export const DEADLINE_RESTORATION_REASON = "Counter-notice received and no court action reported within 10 business days (17 U.S.C. 512(g)(2)(C)).";

/**
 * One pass of the restoration job: every contested DMCA notice whose restoration window has
 * opened (10 business days after the counter-notice) and that has no recorded court action is
 * restored, its measures lifted, each in its own transaction. A notice another process or the
 * operator changed meanwhile is skipped (its compare-and-set loses). Returns how many it restored.
 */
export async function restoreDueNotices(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "stores">, limit = 100): Promise<number> {
  const due = await deps.stores.notices.dueRestorations({ now: deps.clock.now(), limit });
  let restored = 0;
  for (const notice of due) {
    try {
      await restoreNotice(deps, { noticeId: notice.id, reason: DEADLINE_RESTORATION_REASON, by: "system" });
      restored += 1;
    } catch (error) {
      if (!isDomainError(error) || (error.code !== "SVC_RESOURCE_CONFLICT" && error.code !== "SVC_RESOURCE_NOT_FOUND")) throw error;
    }
  }
  return restored;
}
