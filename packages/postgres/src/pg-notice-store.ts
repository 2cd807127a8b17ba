import type { NoticeStore } from "@agentq/core";
import { queryStore } from "./pg-query-store.ts";
import { noticesDueRestorations, noticesFind, noticesInsert, noticesList, noticesListDisclosed, noticesListReceivedBetween, noticesLocate, noticesReplace } from "./queries/notices.ts";

/** NoticeStore on PostgreSQL (table `notices`). */
export class PgNoticeStore extends queryStore({
  insert: noticesInsert, find: noticesFind, replace: noticesReplace, listDisclosed: noticesListDisclosed, list: noticesList,
  listReceivedBetween: noticesListReceivedBetween, dueRestorations: noticesDueRestorations, locate: noticesLocate,
}) implements NoticeStore {}
