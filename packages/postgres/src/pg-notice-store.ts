import type { Notice, NoticeItem, NoticeLocation, NoticeState, NoticeStore, ReplaceResult } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { noticesDueRestorations, noticesFind, noticesInsert, noticesList, noticesListDisclosed, noticesListReceivedBetween, noticesLocate, noticesReplace } from "./queries/notices.ts";
import type { SqlClient } from "./sql-client.ts";

/** NoticeStore on PostgreSQL (table `notices`). */
export class PgNoticeStore implements NoticeStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { notice: Notice }): Promise<void> {
    return withPgErrors(() => noticesInsert(this.sql, p));
  }
  find(p: { noticeId: string }): Promise<Notice | null> {
    return withPgErrors(() => noticesFind(this.sql, p));
  }
  replace(p: { notice: Notice; expectedVersion: number }): Promise<ReplaceResult> {
    return withPgErrors(() => noticesReplace(this.sql, p));
  }
  listDisclosed(p: { workspaceId: string; after: string | null; limit: number }): Promise<Notice[]> {
    return withPgErrors(() => noticesListDisclosed(this.sql, p));
  }
  list(p: { state: NoticeState | null; after: string | null; limit: number }): Promise<Notice[]> {
    return withPgErrors(() => noticesList(this.sql, p));
  }
  listReceivedBetween(p: { from: Date; to: Date }): Promise<Notice[]> {
    return withPgErrors(() => noticesListReceivedBetween(this.sql, p));
  }
  dueRestorations(p: { now: Date; limit: number }): Promise<Notice[]> {
    return withPgErrors(() => noticesDueRestorations(this.sql, p));
  }
  locate(p: { location: NoticeLocation }): Promise<NoticeItem["resolved"]> {
    return withPgErrors(() => noticesLocate(this.sql, p));
  }
}
