import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { Stores } from "../ports.ts";
import type { Notice, NoticeAction, NoticeMeasure } from "./notice.ts";
import { noticeAuditEntry, type NoticeActor } from "./notice-audit.ts";

/**
 * Applies the measure of a decision in the caller's transaction and returns what it applied:
 * - withhold_message: every located message of the affected workspace is withheld;
 * - freeze_account: every located AI account, or when none is located the senders of the
 *   located messages, is frozen;
 * - freeze_workspace: the affected workspace is frozen.
 * An item already in that condition (frozen before, withheld by another notice) is left out, so
 * a restoration never lifts what this notice did not impose. Each change writes its audit row
 * (`message.withheld`, `ai_account.frozen`, `workspace.frozen`) naming the notice.
 * @throws DomainError SVC_RESOURCE_CONFLICT when the notice locates nothing the action applies to.
 */
export async function applyMeasures(deps: Pick<CoreDeps, "ids">, stores: Stores, notice: Notice, p: { action: Exclude<NoticeAction, "none">; now: Date; by: NoticeActor }): Promise<NoticeMeasure[]> {
  const workspaceId = notice.affectedWorkspaceId;
  if (workspaceId === null) throw new DomainError("SVC_RESOURCE_CONFLICT", "The notice locates no agentq item: review it first, or decide with --action none.", { notice_id: notice.id });
  const located = (type: string) => notice.items.flatMap((i) => (i.resolved !== null && i.resolved.workspaceId === workspaceId && i.resolved.itemType === type ? [i.resolved.itemId] : []));
  const audit = (activity: string, subjectType: string, subjectId: string, messageId: string | null = null) =>
    noticeAuditEntry(deps, { ...notice, disclosedAt: notice.disclosedAt ?? p.now }, { workspaceId, occurredAt: p.now, activity, by: p.by, subjectType, subjectId, messageId });
  const measures: NoticeMeasure[] = [];
  const measure = (type: NoticeMeasure["type"], itemId: string): NoticeMeasure => ({ type, workspaceId, itemId, appliedAt: p.now, liftedAt: null });

  if (p.action === "withhold_message") {
    const messages = [...new Set(located("message"))];
    if (messages.length === 0) throw new DomainError("SVC_RESOURCE_CONFLICT", "The notice locates no message of the affected workspace.", { notice_id: notice.id, action: p.action });
    for (const messageId of messages) {
      const r = await stores.messages.withhold({ workspaceId, messageId, audit: audit("message.withheld", "message", messageId, messageId) });
      if (r.kind === "withheld") measures.push(measure("message_withheld", messageId));
    }
  } else if (p.action === "freeze_account") {
    let accounts = located("ai_account");
    // No account located: the senders of the located messages (the review read them).
    if (accounts.length === 0) accounts = notice.items.flatMap((i) => (i.resolved?.workspaceId === workspaceId && i.resolved.itemType === "message" && i.resolved.senderId !== undefined ? [i.resolved.senderId] : []));
    accounts = [...new Set(accounts)];
    if (accounts.length === 0) throw new DomainError("SVC_RESOURCE_CONFLICT", "The notice locates no AI account (nor a message with a sender) of the affected workspace.", { notice_id: notice.id, action: p.action });
    for (const accountId of accounts) {
      const r = await stores.accounts.transition({ workspaceId, accountId, from: ["active"], to: "frozen", now: p.now });
      if (r.kind !== "moved") continue;
      await stores.audit.append({ entry: audit("ai_account.frozen", "ai_account", accountId) });
      measures.push(measure("account_frozen", accountId));
    }
  } else {
    const ws = await stores.workspaces.findById({ workspaceId });
    if (ws !== null && ws.state === "active") {
      await stores.workspaces.setState({ workspaceId, state: "frozen" });
      await stores.audit.append({ entry: audit("workspace.frozen", "workspace", workspaceId) });
      measures.push(measure("workspace_frozen", workspaceId));
    }
  }
  return measures;
}

/**
 * Lifts the measures of a notice that are still in force, in the caller's transaction: a
 * withheld message returns to the state it had, a frozen account or workspace is unfrozen when
 * it is still frozen. Each lift writes its audit row naming the notice. Returns the measures with
 * `liftedAt` set.
 */
export async function liftMeasures(deps: Pick<CoreDeps, "ids">, stores: Stores, notice: Notice, p: { now: Date; by: NoticeActor; reason: string }): Promise<NoticeMeasure[]> {
  const out: NoticeMeasure[] = [];
  for (const m of notice.measures) {
    if (m.liftedAt !== null) {
      out.push(m);
      continue;
    }
    const audit = (activity: string, subjectType: string, messageId: string | null = null) => noticeAuditEntry(deps, notice, { workspaceId: m.workspaceId, occurredAt: p.now, activity, by: p.by, subjectType, subjectId: m.itemId, messageId, details: { reason: p.reason } });
    if (m.type === "message_withheld") {
      await stores.messages.restoreWithheld({ workspaceId: m.workspaceId, messageId: m.itemId, audit: audit("message.withholding_lifted", "message", m.itemId) });
    } else if (m.type === "account_frozen") {
      const r = await stores.accounts.transition({ workspaceId: m.workspaceId, accountId: m.itemId, from: ["frozen"], to: "active", now: p.now });
      if (r.kind === "moved") await stores.audit.append({ entry: audit("ai_account.unfrozen", "ai_account") });
    } else {
      const ws = await stores.workspaces.findById({ workspaceId: m.workspaceId });
      if (ws !== null && ws.state === "frozen") {
        await stores.workspaces.setState({ workspaceId: m.workspaceId, state: "active" });
        await stores.audit.append({ entry: audit("workspace.unfrozen", "workspace") });
      }
    }
    out.push({ ...m, liftedAt: p.now });
  }
  return out;
}
