import { beforeEach, describe, expect, it } from "vitest";
import type { Workspace } from "../access/model.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import { sealAuditChain } from "../audit/seal-audit-chain.ts";
import { verifyAuditChain } from "../audit/verify-audit-chain.ts";
import { SECOND_MS } from "../time/duration.ts";
import { fixtureId } from "./access-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory } from "./messaging-harness.ts";
import { makeAuditEntry } from "./messaging-fixtures.ts";
import { TEST_SECRETS } from "./create-in-memory-deps.ts";
import { TEST_PUBLIC_BASE_URL } from "./oauth-flow.ts";

/**
 * The contract every AuditLog adapter passes (InMemoryAuditLog, PgAuditLog): append, the
 * newest-first list with its filters and keyset paging, the message timeline, the seal lock and
 * sealing in seal order (occurredAt, then id) into a chain `verifyAuditChain` accepts.
 * @param make returns the harness, called before each test.
 */
export function describeAuditLogContract(make: MessagingHarnessFactory): void {
  describe("AuditLog contract", () => {
    let h: MessagingHarness;
    let ws: Workspace;
    let base: number;

    beforeEach(async () => {
      h = await make();
      ws = (await seedWorkspace(h.stores)).workspace;
      base = (await h.stores.messages.now()).getTime();
    });

    const at = (s: number) => new Date(base + s * SECOND_MS);
    async function append(overrides: Partial<NewAuditEntry>): Promise<NewAuditEntry> {
      const e = makeAuditEntry(ws.id, { occurredAt: at(0), ...overrides });
      await h.stores.audit.append({ entry: e });
      return e;
    }
    const sealDeps = () => ({ stores: h.stores, clock: { now: () => new Date(base) }, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL });

    it("lists newest first (occurredAt, then id), filtered by activity and message, operator-significant rows only on request", async () => {
      const messageId = fixtureId();
      const a = await append({ occurredAt: at(1), activity: "message.sent", messageId });
      const b = await append({ occurredAt: at(3), activity: "message.claimed", messageId });
      const c = await append({ occurredAt: at(2), activity: "credential.revoked", details: { deep: { list: [1, "x", null] } } });
      const d = await append({ occurredAt: at(2), activity: "workspace.inspected", operatorSignificant: true });
      const list = (q: { activity?: string; messageId?: string; op?: boolean }) =>
        h.stores.audit.list({ workspaceId: ws.id, activity: q.activity ?? null, messageId: q.messageId ?? null, includeOperatorSignificant: q.op ?? false, after: null, limit: 10 }).then((rows) => rows.map((r) => r.id));
      expect(await list({})).toEqual([b.id, c.id, a.id]);
      expect(await list({ op: true })).toEqual([b.id, d.id, c.id, a.id]);
      expect(await list({ activity: "message.sent" })).toEqual([a.id]);
      expect(await list({ messageId })).toEqual([b.id, a.id]);
      const rows = await h.stores.audit.list({ workspaceId: ws.id, activity: "credential.revoked", messageId: null, includeOperatorSignificant: false, after: null, limit: 10 });
      expect(rows[0]).toMatchObject({ ...c, seq: null, prevHash: null, hash: null, sealedAt: null });
      const other = (await seedWorkspace(h.stores)).workspace;
      expect(await h.stores.audit.list({ workspaceId: other.id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 10 })).toEqual([]);
    });

    it("pages with positionOf, returning up to limit + 1 rows", async () => {
      const rows: NewAuditEntry[] = [];
      for (let i = 0; i < 5; i++) rows.push(await append({ occurredAt: at(i % 2) }));
      const expected = [...rows].sort((x, y) => y.occurredAt.getTime() - x.occurredAt.getTime() || (y.id < x.id ? -1 : 1)).map((r) => r.id);
      const seen: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page = await h.stores.audit.list({ workspaceId: ws.id, activity: null, messageId: null, includeOperatorSignificant: false, after, limit: 2 });
        expect(page.length).toBeLessThanOrEqual(3);
        const kept = page.slice(0, 2);
        seen.push(...kept.map((r) => r.id));
        if (page.length <= 2) break;
        after = h.stores.audit.positionOf(kept[kept.length - 1] as (typeof page)[number]);
      }
      expect(seen).toEqual(expected);
    });

    it("gives a message's timeline oldest first", async () => {
      const messageId = fixtureId();
      const b = await append({ occurredAt: at(2), messageId, activity: "message.claimed" });
      const a = await append({ occurredAt: at(1), messageId, activity: "message.sent" });
      await append({ occurredAt: at(1) });
      expect((await h.stores.audit.timeline({ workspaceId: ws.id, messageId })).map((r) => r.id)).toEqual([a.id, b.id]);
    });

    it("seals in seal order into a chain the verifier accepts, continuing from the head on the next pass", async () => {
      const rows = [await append({ occurredAt: at(5) }), await append({ occurredAt: at(1) }), await append({ occurredAt: at(3) }), await append({ occurredAt: at(3) })];
      expect(await h.stores.audit.workspacesToSeal({ limit: 100_000 })).toContain(ws.id);
      expect(await sealAuditChain(sealDeps(), ws.id)).toBe(4);
      expect(await h.stores.audit.workspacesToSeal({ limit: 100_000 })).not.toContain(ws.id);
      const chain = await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 });
      const sealOrder = [...rows].sort((x, y) => x.occurredAt.getTime() - y.occurredAt.getTime() || (x.id < y.id ? -1 : 1)).map((r) => r.id);
      expect(chain.map((r) => r.id)).toEqual(sealOrder);
      expect(chain.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect(chain.every((r) => r.sealedAt !== null)).toBe(true);
      const first = verifyAuditChain(chain);
      expect(first).toMatchObject({ ok: true, checked: 4 });
      await append({ occurredAt: at(0), details: { later: true } });
      expect(await sealAuditChain(sealDeps(), ws.id)).toBe(1);
      const all = await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 });
      expect(verifyAuditChain(all)).toMatchObject({ ok: true, checked: 5 });
      const tail = await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 4, limit: 100 });
      expect(tail.map((r) => r.seq)).toEqual([5]);
      if (first.ok && first.head) expect(verifyAuditChain(tail, first.head)).toMatchObject({ ok: true, checked: 1 });
      expect(await sealAuditChain(sealDeps(), ws.id)).toBe(0);
    });

    it("grants the seal lock to one sealer at a time per workspace", async () => {
      await append({});
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let entered!: () => void;
      const inside = new Promise<void>((r) => (entered = r));
      const holder = h.stores.audit.withSealLock({ workspaceId: ws.id }, async (s) => {
        entered();
        await gate;
        return (await s.unsealed({ limit: 10 })).length;
      });
      await inside;
      expect(await h.stores.audit.withSealLock({ workspaceId: ws.id }, async () => "second")).toBeNull();
      const other = (await seedWorkspace(h.stores)).workspace;
      expect(await h.stores.audit.withSealLock({ workspaceId: other.id }, async () => "other")).toBe("other");
      release();
      expect(await holder).toBe(1);
      expect(await h.stores.audit.withSealLock({ workspaceId: ws.id }, async () => "again")).toBe("again");
    });

    it("keeps no seals when the sealing function throws", async () => {
      const e = await append({});
      await expect(h.stores.audit.withSealLock({ workspaceId: ws.id }, async (s) => {
        const [row] = await s.unsealed({ limit: 1 });
        await s.appendLinks({ links: [{ auditId: (row as NewAuditEntry).id, seq: 1, prevHash: "0".repeat(64), hash: "1".repeat(64) }], sealedAt: at(0) });
        throw new Error("sealer crashed");
      })).rejects.toThrow("sealer crashed");
      expect(await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 10 })).toEqual([]);
      expect(await sealAuditChain(sealDeps(), ws.id)).toBe(1);
      expect((await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 10 })).map((r) => r.id)).toEqual([e.id]);
    });
  });
}
