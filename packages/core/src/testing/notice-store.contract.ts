import { beforeEach, describe, expect, it } from "vitest";
import type { Notice } from "../notices/notice.ts";
import { fixtureId } from "./access-fixtures.ts";
import { makeAuditEntry, makeNewMessage } from "./messaging-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory, type SeededWorkspace } from "./messaging-harness.ts";

const AT = new Date("2026-03-02T10:00:00.000Z");

/** A received DSA notice (overridable). */
export function makeNotice(overrides: Partial<Notice> = {}): Notice {
  return {
    id: fixtureId(),
    kind: "dsa",
    state: "received",
    category: "illegal_hate_speech",
    statusTokenHash: `hash-${fixtureId()}`,
    submission: {
      kind: "dsa",
      category: "illegal_hate_speech",
      explanation: "Why.",
      copyrightedWork: null,
      infringingMaterial: null,
      signature: null,
      locations: [{ type: "url", url: "https://example.org/x" }],
      notifier: { name: "N", email: "n@example.org" },
      goodFaithStatement: true,
      accuracyStatement: false,
    },
    supplements: [],
    informationRequests: [],
    items: [],
    affectedWorkspaceId: null,
    decision: null,
    measures: [],
    counterNotice: null,
    restoration: null,
    courtAction: null,
    disclosedAt: null,
    events: [{ at: AT, activity: "notice.received", by: "notifier", text: null }],
    receivedAt: AT,
    updatedAt: AT,
    version: 1,
    ...overrides,
  };
}

/**
 * The NoticeStore contract, and the MessageStore's withholding (DESIGN §2b), run against every
 * adapter family.
 */
export function describeNoticeStoreContract(make: MessagingHarnessFactory): void {
  describe("NoticeStore contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });

    it("inserts, finds and replaces by compare-and-set, keeping every field (dates included)", async () => {
      const n = makeNotice({ restoration: { earliestAt: AT, latestAt: new Date(AT.getTime() + 1000) }, decision: { outcome: "action_taken", action: "withhold_message", reason: "r", decidedAt: AT }, measures: [{ type: "message_withheld", workspaceId: w.workspace.id, itemId: "m", appliedAt: AT, liftedAt: null }], supplements: [{ at: AT, text: "more" }] });
      await h.stores.notices.insert({ notice: n });
      expect(await h.stores.notices.find({ noticeId: n.id })).toEqual(n);
      expect(await h.stores.notices.find({ noticeId: fixtureId() })).toBeNull();
      const next = { ...n, state: "under_review" as const, version: 2 };
      expect(await h.stores.notices.replace({ notice: next, expectedVersion: 1 })).toEqual({ kind: "replaced" });
      expect(await h.stores.notices.replace({ notice: { ...next, version: 3 }, expectedVersion: 1 })).toEqual({ kind: "conflict" });
      expect(await h.stores.notices.find({ noticeId: n.id })).toEqual(next);
    });

    it("lets one of two concurrent replaces of a version win", async () => {
      const n = makeNotice();
      await h.stores.notices.insert({ notice: n });
      const results = await Promise.all([1, 2].map((i) => h.tx.run((s) => s.notices.replace({ notice: { ...n, category: `c${i}`, version: 2 }, expectedVersion: 1 }))));
      expect(results.map((r) => r.kind).sort()).toEqual(["conflict", "replaced"]);
    });

    it("lists a workspace's disclosed notices newest first, paged, and nothing of other workspaces", async () => {
      const other = await seedWorkspace(h.stores);
      const mine = [makeNotice({ affectedWorkspaceId: w.workspace.id, disclosedAt: AT }), makeNotice({ affectedWorkspaceId: w.workspace.id, disclosedAt: AT }), makeNotice({ affectedWorkspaceId: w.workspace.id, disclosedAt: AT })];
      for (const n of [...mine, makeNotice({ affectedWorkspaceId: w.workspace.id }), makeNotice({ affectedWorkspaceId: other.workspace.id, disclosedAt: AT })]) await h.stores.notices.insert({ notice: n });
      const ids = mine.map((n) => n.id).reverse();
      expect((await h.stores.notices.listDisclosed({ workspaceId: w.workspace.id, after: null, limit: 2 })).map((n) => n.id)).toEqual(ids);
      expect((await h.stores.notices.listDisclosed({ workspaceId: w.workspace.id, after: ids[1] ?? null, limit: 2 })).map((n) => n.id)).toEqual([ids[2]]);
    });

    it("finds due restorations: contested DMCA, window open, no court action", async () => {
      const window = (ms: number) => ({ earliestAt: new Date(AT.getTime() + ms), latestAt: new Date(AT.getTime() + ms + 1000) });
      const due = makeNotice({ kind: "dmca", state: "contested", restoration: window(-1000) });
      const later = makeNotice({ kind: "dmca", state: "contested", restoration: window(60_000) });
      const court = makeNotice({ kind: "dmca", state: "contested", restoration: window(-1000), courtAction: { recordedAt: AT, reference: "case" } });
      const dsa = makeNotice({ kind: "dsa", state: "contested", restoration: window(-1000) });
      for (const n of [due, later, court, dsa]) await h.stores.notices.insert({ notice: n });
      const found = (await h.stores.notices.dueRestorations({ now: AT, limit: 1000 })).map((n) => n.id);
      expect(found).toContain(due.id);
      for (const n of [later, court, dsa]) expect(found).not.toContain(n.id);
      const all = await h.stores.notices.list({ state: "contested", after: null, limit: 1000 });
      expect(all.map((n) => n.id)).toEqual(expect.arrayContaining([due.id, later.id, court.id, dsa.id]));
      const received = await h.stores.notices.listReceivedBetween({ from: AT, to: new Date(AT.getTime() + 1) });
      expect(received.map((n) => n.id)).toEqual(expect.arrayContaining([due.id, later.id]));
    });

    it("locates messages, accounts and workspaces in any workspace, and nothing that is not there", async () => {
      const now = await h.stores.messages.now();
      const m = makeNewMessage({ sender: w.sender, recipient: w.recipient, now });
      await h.stores.messages.acceptSend({ message: m, audit: makeAuditEntry(w.workspace.id, { messageId: m.id }), idempotency: null });
      expect(await h.stores.notices.locate({ location: { type: "message", id: m.id } })).toEqual({ workspaceId: w.workspace.id, itemType: "message", itemId: m.id, senderId: w.sender.id });
      const other = await seedWorkspace(h.stores);
      expect(await h.stores.notices.locate({ location: { type: "message", id: m.id, workspace_id: other.workspace.id } })).toBeNull();
      expect(await h.stores.notices.locate({ location: { type: "message", id: fixtureId() } })).toBeNull();
      expect(await h.stores.notices.locate({ location: { type: "ai_account", id: w.sender.id } })).toEqual({ workspaceId: w.workspace.id, itemType: "ai_account", itemId: w.sender.id });
      expect(await h.stores.notices.locate({ location: { type: "ai_account", name: w.sender.friendlyName, workspace_id: w.workspace.id } })).toEqual({ workspaceId: w.workspace.id, itemType: "ai_account", itemId: w.sender.id });
      expect(await h.stores.notices.locate({ location: { type: "workspace", id: other.workspace.id } })).toEqual({ workspaceId: other.workspace.id, itemType: "workspace", itemId: other.workspace.id });
      expect(await h.stores.notices.locate({ location: { type: "session_record", id: fixtureId() } })).toBeNull();
    });
  });

  describe("MessageStore withholding contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });
    const send = async () => {
      const m = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: await h.stores.messages.now() });
      await h.stores.messages.acceptSend({ message: m, audit: makeAuditEntry(w.workspace.id, { messageId: m.id }), idempotency: null });
      return m.id;
    };
    const claim = async () => (await h.stores.messages.claimBatch({ workspaceId: w.workspace.id, recipientId: w.recipient.id, max: 10, visibilityTimeoutMs: 30_000, maxDeliveries: 10, auditIds: Array.from({ length: 10 }, () => fixtureId()), requestId: null, credentialId: null })).claimed;

    it("takes a pending message out of the claim path and returns it; a held one comes back claimable", async () => {
      const [a, b] = [await send(), await send()];
      const withheld = await h.stores.messages.withhold({ workspaceId: w.workspace.id, messageId: a, audit: makeAuditEntry(w.workspace.id, { activity: "message.withheld", messageId: a }) });
      expect(withheld).toMatchObject({ kind: "withheld", message: { id: a, state: "withheld" } });
      expect(await h.stores.messages.withhold({ workspaceId: w.workspace.id, messageId: a, audit: makeAuditEntry(w.workspace.id) })).toEqual({ kind: "already_withheld" });
      expect(await h.stores.messages.withhold({ workspaceId: w.workspace.id, messageId: fixtureId(), audit: makeAuditEntry(w.workspace.id) })).toEqual({ kind: "not_found" });
      const other = await seedWorkspace(h.stores);
      expect(await h.stores.messages.withhold({ workspaceId: other.workspace.id, messageId: b, audit: makeAuditEntry(other.workspace.id) })).toEqual({ kind: "not_found" });
      const held = (await claim()).map((m) => m.id);
      expect(held).toEqual([b]);
      // b is held: withholding ends its lease; a returns to pending.
      await h.stores.messages.withhold({ workspaceId: w.workspace.id, messageId: b, audit: makeAuditEntry(w.workspace.id) });
      expect(await claim()).toEqual([]);
      const ra = await h.stores.messages.restoreWithheld({ workspaceId: w.workspace.id, messageId: a, audit: makeAuditEntry(w.workspace.id) });
      const rb = await h.stores.messages.restoreWithheld({ workspaceId: w.workspace.id, messageId: b, audit: makeAuditEntry(w.workspace.id) });
      expect(ra).toMatchObject({ kind: "restored", message: { state: "pending" } });
      expect(rb).toMatchObject({ kind: "restored", message: { state: "pending", leaseId: null } });
      expect(await h.stores.messages.restoreWithheld({ workspaceId: w.workspace.id, messageId: a, audit: makeAuditEntry(w.workspace.id) })).toEqual({ kind: "not_withheld" });
      expect((await claim()).map((m) => m.id).sort()).toEqual([a, b].sort());
    });

    it("returns an acknowledged message to acknowledged", async () => {
      const a = await send();
      const [m] = await claim();
      await h.stores.messages.ackIfHeld({ workspaceId: w.workspace.id, messageId: a, recipientId: w.recipient.id, leaseId: m?.leaseId ?? "", outcomeSummary: null, audit: makeAuditEntry(w.workspace.id) });
      await h.stores.messages.withhold({ workspaceId: w.workspace.id, messageId: a, audit: makeAuditEntry(w.workspace.id) });
      expect(await h.stores.messages.restoreWithheld({ workspaceId: w.workspace.id, messageId: a, audit: makeAuditEntry(w.workspace.id) })).toMatchObject({ kind: "restored", message: { state: "acknowledged" } });
    });
  });
}
