import { describe, expect, it } from "vitest";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { makeAuditEntry } from "../testing/messaging-fixtures.ts";
import { seedTestWorkspace } from "../testing/principal-fixtures.ts";
import type { AuditEntry } from "./audit-entry.ts";
import { GENESIS_HASH } from "./audit-hash.ts";
import { sealAuditChain, sealAuditChains } from "./seal-audit-chain.ts";
import { verifyAuditChain } from "./verify-audit-chain.ts";

async function sealedChain(n: number): Promise<AuditEntry[]> {
  const world = createInMemoryDeps();
  const ws = await seedTestWorkspace(world.deps.stores);
  for (let i = 0; i < n; i++) await world.deps.stores.audit.append({ entry: makeAuditEntry(ws.id, { occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)), details: { i } }) });
  expect(await sealAuditChains(world.deps)).toBe(n);
  return world.deps.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 1000 });
}

describe("audit chain", () => {
  it("seals from the genesis hash and verifies", async () => {
    const chain = await sealedChain(5);
    expect(chain[0]?.prevHash).toBe(GENESIS_HASH);
    expect(chain.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    const v = verifyAuditChain(chain);
    expect(v).toEqual({ ok: true, checked: 5, head: { seq: 5, hash: chain[4]?.hash } });
    expect(verifyAuditChain([])).toEqual({ ok: true, checked: 0, head: null });
  });

  it("names an altered row (changed), a row after a deleted one (removed) and a swapped pair (reordered)", async () => {
    const chain = await sealedChain(5);
    const altered = chain.map((r, i) => (i === 2 ? { ...r, details: { i: 99 } } : r));
    expect(verifyAuditChain(altered)).toEqual({ ok: false, checked: 2, row: { id: chain[2]?.id, seq: 3 }, reason: "changed" });
    const actor = chain.map((r, i) => (i === 0 ? { ...r, actorAccountId: "someone" } : r));
    expect(verifyAuditChain(actor)).toMatchObject({ ok: false, row: { id: chain[0]?.id }, reason: "changed" });
    const deleted = chain.filter((_, i) => i !== 1);
    expect(verifyAuditChain(deleted)).toEqual({ ok: false, checked: 1, row: { id: chain[2]?.id, seq: 3 }, reason: "removed" });
    const swapped = [chain[0], chain[2], chain[1], chain[3]] as AuditEntry[];
    expect(verifyAuditChain(swapped)).toMatchObject({ ok: false, checked: 1, row: { id: chain[2]?.id }, reason: "reordered" });
    const swappedSeqs = [chain[0], { ...chain[2], seq: 2 }, { ...chain[1], seq: 3 }] as AuditEntry[];
    expect(verifyAuditChain(swappedSeqs)).toMatchObject({ ok: false, row: { id: chain[2]?.id }, reason: "changed" });
    const duplicated = [chain[0], chain[1], chain[1]] as AuditEntry[];
    expect(verifyAuditChain(duplicated)).toMatchObject({ ok: false, checked: 2, reason: "reordered" });
    const rehashedLink = chain.map((r, i) => (i === 3 ? { ...r, prevHash: "f".repeat(64) } : r));
    expect(verifyAuditChain(rehashedLink)).toMatchObject({ ok: false, row: { id: chain[3]?.id }, reason: "changed" });
  });

  it("verifies a tail from a known head", async () => {
    const chain = await sealedChain(4);
    const head = { seq: 2, hash: chain[1]?.hash as string };
    expect(verifyAuditChain(chain.slice(2), head)).toMatchObject({ ok: true, checked: 2 });
    expect(verifyAuditChain(chain.slice(3), head)).toMatchObject({ ok: false, reason: "removed" });
  });

  it("seals in batches up to maxRows, then continues where it stopped", async () => {
    const world = createInMemoryDeps();
    const ws = await seedTestWorkspace(world.deps.stores);
    for (let i = 0; i < 7; i++) await world.deps.stores.audit.append({ entry: makeAuditEntry(ws.id, { occurredAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 7 - i)) }) });
    expect(await sealAuditChain(world.deps, ws.id, { maxRows: 3 })).toBe(3);
    expect(await sealAuditChain(world.deps, ws.id)).toBe(4);
    const chain = await world.deps.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 });
    expect(verifyAuditChain(chain)).toMatchObject({ ok: true, checked: 7 });
    expect(chain.map((r) => r.occurredAt.getTime())).toEqual([...chain.map((r) => r.occurredAt.getTime())].sort((a, b) => a - b));
  });
});
