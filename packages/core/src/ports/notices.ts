import type { Notice, NoticeItem, NoticeLocation, NoticeState } from "../notices/notice.ts";
import type { ReplaceResult } from "./compare-and-set.ts";

// The notice seam (DESIGN §2b): DSA and DMCA notices, not scoped by workspace (the public files
// them). Every port's general rules: src/ports.ts.

/**
 * Notices. The core decides every transition on a record it read; `replace` is a compare-and-set
 * on `version`, so of two concurrent writes (an operator's decision and a notifier's withdrawal,
 * two restoration passes) one wins and the other gets `conflict`. Unlike the other stores,
 * notices are found by id alone: the affected workspace is a field, set by the review.
 */
export interface NoticeStore {
  /** Inserts a notice. */
  insert(p: { notice: Notice }): Promise<void>;
  /** The notice, or null. */
  find(p: { noticeId: string }): Promise<Notice | null>;
  /** Replaces a notice whose stored version is `expectedVersion`. */
  replace(p: { notice: Notice; expectedVersion: number }): Promise<ReplaceResult>;
  /** Notices disclosed to the workspace (affected and disclosedAt set), newest first (id descending); `after` is a notice id. */
  listDisclosed(p: { workspaceId: string; after: string | null; limit: number }): Promise<Notice[]>;
  /** Every notice, newest first, optionally of one state; `after` is a notice id (the operator's list). */
  list(p: { state: NoticeState | null; after: string | null; limit: number }): Promise<Notice[]>;
  /** Notices received in [from, to), oldest first (the operator's report). */
  listReceivedBetween(p: { from: Date; to: Date }): Promise<Notice[]>;
  /** Contested DMCA notices whose restoration window opened at or before `now` and that have no court action, oldest window first. */
  dueRestorations(p: { now: Date; limit: number }): Promise<Notice[]>;
  /**
   * The agentq item a location names, in any workspace (or in `location.workspace_id` when
   * given), or null: a message, an AI account (by id, or by friendly name with workspace_id), a
   * workspace, or a session-state record (project, decision, build session, backlog item).
   * Templates and URLs are resolved by the core, not here.
   */
  locate(p: { location: NoticeLocation }): Promise<NoticeItem["resolved"]>;
}
