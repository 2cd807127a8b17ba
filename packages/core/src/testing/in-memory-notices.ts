import type { Notice, NoticeItem, NoticeLocation, NoticeState } from "../notices/notice.ts";
import type { NoticeStore, ReplaceResult } from "../ports.ts";
import type { InMemoryAccessTables } from "./in-memory-access.ts";
import type { InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import type { InMemorySessionStateTables } from "./in-memory-session-state.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/** The rows behind InMemoryNoticeStore. */
export class InMemoryNoticeTables {
  /** Keyed by notice id. */
  readonly notices = new InMemoryTable<Notice>();
}

/** The tables `locate` looks items up in. */
export interface NoticeItemTables {
  messaging: InMemoryMessagingTables;
  access: InMemoryAccessTables;
  sessionState: InMemorySessionStateTables;
}

const newestFirst = (a: Notice, b: Notice) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** In-memory NoticeStore. */
export class InMemoryNoticeStore implements NoticeStore {
  constructor(
    private readonly tables: InMemoryNoticeTables,
    private readonly items: NoticeItemTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async insert(p: { notice: Notice }): Promise<void> {
    this.tables.notices.set(this.tx, p.notice.id, p.notice);
  }

  async find(p: { noticeId: string }): Promise<Notice | null> {
    return this.tables.notices.get(p.noticeId) ?? null;
  }

  async replace(p: { notice: Notice; expectedVersion: number }): Promise<ReplaceResult> {
    const current = this.tables.notices.get(p.notice.id);
    if (current === undefined || current.version !== p.expectedVersion) return { kind: "conflict" };
    this.tables.notices.set(this.tx, p.notice.id, p.notice);
    return { kind: "replaced" };
  }

  async listDisclosed(p: { workspaceId: string; after: string | null; limit: number }): Promise<Notice[]> {
    return this.tables.notices
      .values()
      .filter((n) => n.affectedWorkspaceId === p.workspaceId && n.disclosedAt !== null && (p.after === null || n.id < p.after))
      .sort(newestFirst)
      .slice(0, p.limit + 1);
  }

  async list(p: { state: NoticeState | null; after: string | null; limit: number }): Promise<Notice[]> {
    return this.tables.notices
      .values()
      .filter((n) => (p.state === null || n.state === p.state) && (p.after === null || n.id < p.after))
      .sort(newestFirst)
      .slice(0, p.limit + 1);
  }

  async listReceivedBetween(p: { from: Date; to: Date }): Promise<Notice[]> {
    return this.tables.notices
      .values()
      .filter((n) => n.receivedAt.getTime() >= p.from.getTime() && n.receivedAt.getTime() < p.to.getTime())
      .sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || (a.id < b.id ? -1 : 1));
  }

  async dueRestorations(p: { now: Date; limit: number }): Promise<Notice[]> {
    return this.tables.notices
      .values()
      .filter((n) => n.state === "contested" && n.kind === "dmca" && n.courtAction === null && n.restoration !== null && n.restoration.earliestAt.getTime() <= p.now.getTime())
      .sort((a, b) => (a.restoration?.earliestAt.getTime() ?? 0) - (b.restoration?.earliestAt.getTime() ?? 0))
      .slice(0, p.limit);
  }

  async locate(p: { location: NoticeLocation }): Promise<NoticeItem["resolved"]> {
    const l = p.location;
    const inScope = (workspaceId: string) => l.workspace_id === undefined || l.workspace_id === workspaceId;
    switch (l.type) {
      case "message": {
        const m = l.id === undefined ? undefined : this.items.messaging.messages.get(l.id);
        return m !== undefined && inScope(m.workspaceId) ? { workspaceId: m.workspaceId, itemType: "message", itemId: m.id, senderId: m.senderId } : null;
      }
      case "ai_account": {
        const a = this.items.access.accounts.values().find((x) => (l.id !== undefined ? x.id === l.id : x.friendlyName === l.name && x.state !== "revoked") && inScope(x.workspaceId));
        return a === undefined ? null : { workspaceId: a.workspaceId, itemType: "ai_account", itemId: a.id };
      }
      case "workspace": {
        const w = l.id === undefined ? undefined : this.items.access.workspaces.get(l.id);
        return w === undefined ? null : { workspaceId: w.id, itemType: "workspace", itemId: w.id };
      }
      case "session_record": {
        const s = this.items.sessionState;
        const records: { id: string; workspaceId: string }[] = [...s.projects.values().map((r) => r.project), ...s.decisions.values(), ...s.sessions.values(), ...s.backlog.values()];
        const r = records.find((x) => x.id === l.id && inScope(x.workspaceId));
        return r === undefined ? null : { workspaceId: r.workspaceId, itemType: "session_record", itemId: r.id };
      }
      default:
        return null;
    }
  }
}
