import { beforeEach, describe, expect, it } from "vitest";
import { TEST_PUBLIC_BASE_URL } from "./oauth-flow.ts";
import type { Workspace } from "../access/model.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import { sealAuditChain } from "../audit/seal-audit-chain.ts";
import { auditLeafHash } from "../audit/transparency-log/audit-leaf.ts";
import { latestAuditCheckpoint, messageReceipt, proveAuditConsistency, proveAuditInclusion } from "../audit/transparency-log/audit-proofs.ts";
import { logOrigin, parseCheckpoint } from "../audit/transparency-log/checkpoint.ts";
import { auditLogKeys } from "../audit/transparency-log/log-key.ts";
import { openNote, parseVerifierKey, type NoteVerifier } from "../audit/transparency-log/signed-note.ts";
import { subTreeNodes } from "../audit/transparency-log/tree-coordinates.ts";
import { TreeFrontier } from "../audit/transparency-log/tree-frontier.ts";
import { checkRecord, checkTree, proveTree } from "../audit/transparency-log/tree-proofs.ts";
import { verifyConsistencyBundle, verifyMessageReceipt } from "../audit/transparency-log/verify-receipt.ts";
import { base64Decode } from "../encoding/base64.ts";
import { DomainError } from "../errors.ts";
import { SECOND_MS } from "../time/duration.ts";
import { fixtureId } from "./access-fixtures.ts";
import { TEST_SECRETS } from "./create-in-memory-deps.ts";
import { seedWorkspace, type MessagingHarness } from "./messaging-harness.ts";
import { makeAuditEntry } from "./messaging-fixtures.ts";

/** The messaging harness plus what the tree's suite needs to stage by hand. */
export interface AuditTreeHarness extends MessagingHarness {
  /**
   * Puts the workspace's sealed chain in the state migration 0019 finds an existing chain in: no
   * tree hashes, no checkpoint, the workspace on the tree's backlog. Chain and rows untouched.
   */
  forgetTree(workspaceId: string): Promise<void>;
  /** Rewrites a stored row's details behind the log's back (a tamper). */
  tamperRow(workspaceId: string, auditId: string, details: Record<string, unknown>): Promise<void>;
}

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
  return "no error";
}

/**
 * The contract of each workspace's Merkle tree over its audit chain (AuditTree and the seal
 * session's tree methods; InMemory and PostgreSQL): the sealer appends every sealed row as a leaf
 * in seq order and publishes a signed checkpoint; proofs read the stored hashes; a chain sealed
 * before the tree existed is caught up, checked against its links, without touching a row.
 * @param make returns the harness, called before each test.
 */
export function describeAuditTreeContract(make: () => Promise<AuditTreeHarness>): void {
  describe("AuditTree contract", () => {
    let h: AuditTreeHarness;
    let ws: Workspace;
    let base: number;
    const deps = () => ({ stores: h.stores, clock: { now: () => new Date(base) }, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL });
    const keys = () => auditLogKeys(deps());
    const verifiers = (): NoteVerifier[] => keys().verifierKeys.map((k) => parseVerifierKey(k) as NoteVerifier);

    beforeEach(async () => {
      h = await make();
      ws = (await seedWorkspace(h.stores)).workspace;
      base = (await h.stores.messages.now()).getTime();
    });

    async function append(n: number, overrides: Partial<NewAuditEntry> = {}): Promise<NewAuditEntry[]> {
      const rows: NewAuditEntry[] = [];
      for (let i = 0; i < n; i++) {
        const e = makeAuditEntry(ws.id, { occurredAt: new Date(base + rows.length * SECOND_MS), details: { i, text: "caf\u00e9 \u{1F600}" }, ...overrides });
        await h.stores.audit.append({ entry: e });
        rows.push(e);
      }
      return rows;
    }
    /** The root of the chain's rows as leaves, computed from the chain itself. */
    async function chainRoot(size: number): Promise<Uint8Array> {
      const chain = await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: size });
      const frontier = TreeFrontier.empty();
      for (const row of chain) frontier.append(auditLeafHash(row, row.seq as number));
      return frontier.root();
    }

    it("appends every sealed row as a leaf in seq order and publishes a checkpoint signed with the log's key", async () => {
      expect(await h.stores.auditTree.latestCheckpoint({ workspaceId: ws.id })).toBeNull();
      // The workspace's own creation rows are in the log too.
      await append(5);
      const sealed = (await sealAuditChain(deps(), ws.id)) as number;
      const checkpoint = await latestAuditCheckpoint(deps(), { workspaceId: ws.id });
      expect(checkpoint.treeSize).toBe(sealed);
      expect(checkpoint.rootHash).toEqual(await chainRoot(sealed));
      expect(checkpoint.signedAt).toEqual(new Date(base));
      const opened = openNote(checkpoint.note, verifiers());
      expect(opened).toMatchObject({ kind: "verified", signatures: [{ name: keys().signer.name, keyHash: keys().signer.keyHash }] });
      expect(parseCheckpoint((opened as { text: string }).text)).toEqual({ origin: logOrigin(TEST_PUBLIC_BASE_URL, ws.id), treeSize: sealed, rootHash: checkpoint.rootHash });
      expect(await h.stores.auditTree.readHashes({ workspaceId: ws.id, nodes: subTreeNodes(0, sealed) })).toHaveLength(subTreeNodes(0, sealed).length);
      await expect(h.stores.auditTree.readHashes({ workspaceId: ws.id, nodes: [{ level: 0, index: sealed }] })).rejects.toThrow();
      const other = (await seedWorkspace(h.stores)).workspace;
      expect(await h.stores.auditTree.latestCheckpoint({ workspaceId: other.id })).toBeNull();
      await expect(h.stores.auditTree.readHashes({ workspaceId: other.id, nodes: [{ level: 0, index: 0 }] })).rejects.toThrow();
    });

    it("proves inclusion of every row and consistency between checkpoints from the stored hashes", async () => {
      await append(6);
      const first = (await sealAuditChain(deps(), ws.id)) as number;
      const older = await latestAuditCheckpoint(deps(), { workspaceId: ws.id });
      await append(11);
      const total = first + ((await sealAuditChain(deps(), ws.id)) as number);
      const newer = await latestAuditCheckpoint(deps(), { workspaceId: ws.id });
      expect(newer.treeSize).toBe(total);
      const chain = await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 });
      for (const row of chain) {
        const seq = row.seq as number;
        const proof = await proveAuditInclusion(deps(), { workspaceId: ws.id, seq, treeSize: total });
        expect(proof).toMatchObject({ seq, leaf_index: seq - 1, tree_size: total });
        const hashes = proof.hashes.map((x) => base64Decode(x) as Uint8Array);
        expect(checkRecord(hashes, total, newer.rootHash, seq - 1, auditLeafHash(row, seq))).toEqual({ ok: true });
      }
      const consistency = await proveAuditConsistency(deps(), { workspaceId: ws.id, from: older.treeSize, to: newer.treeSize });
      const hashes = consistency.hashes.map((x) => base64Decode(x) as Uint8Array);
      expect(checkTree(hashes, newer.treeSize, newer.rootHash, older.treeSize, older.rootHash)).toEqual({ ok: true });
      expect(verifyConsistencyBundle({ old_checkpoint: older.note, new_checkpoint: newer.note, consistency }, { verifierKeys: keys().verifierKeys })).toMatchObject({ ok: true, treeSize: total });
      expect(await proveAuditConsistency(deps(), { workspaceId: ws.id, from: total, to: total })).toEqual({ from: total, to: total, hashes: [] });
      expect(await code(proveAuditInclusion(deps(), { workspaceId: ws.id, seq: 0, treeSize: total }))).toBe("SVC_MALFORMED_REQUEST");
      expect(await code(proveAuditInclusion(deps(), { workspaceId: ws.id, seq: 3, treeSize: 2 }))).toBe("SVC_MALFORMED_REQUEST");
      expect(await code(proveAuditInclusion(deps(), { workspaceId: ws.id, seq: 1, treeSize: total + 1 }))).toBe("SVC_MALFORMED_REQUEST");
      expect(await code(proveAuditConsistency(deps(), { workspaceId: ws.id, from: 0, to: total }))).toBe("SVC_MALFORMED_REQUEST");
      expect(await code(proveAuditConsistency(deps(), { workspaceId: ws.id, from: 2, to: total + 1 }))).toBe("SVC_MALFORMED_REQUEST");
      const other = (await seedWorkspace(h.stores)).workspace;
      expect(await code(proveAuditInclusion(deps(), { workspaceId: other.id, seq: 1, treeSize: 1 }))).toBe("SVC_RESOURCE_NOT_FOUND");
    });

    it("hands out a message's receipt, which verifies offline, once its send is sealed", async () => {
      const messageId = fixtureId();
      await append(3);
      const [sent] = await append(1, { activity: "message.sent", messageId, subjectType: "message", subjectId: messageId });
      expect(await code(messageReceipt(deps(), { workspaceId: ws.id, messageId }))).toBe("SVC_RESOURCE_CONFLICT");
      expect(await code(messageReceipt(deps(), { workspaceId: ws.id, messageId: fixtureId() }))).toBe("SVC_RESOURCE_NOT_FOUND");
      await sealAuditChain(deps(), ws.id);
      await append(2, { activity: "message.acknowledged", messageId });
      await sealAuditChain(deps(), ws.id);
      const receipt = await messageReceipt(deps(), { workspaceId: ws.id, messageId });
      expect(JSON.parse(receipt.record)).toMatchObject({ id: sent?.id, activity: "message.sent", message_id: messageId, workspace_id: ws.id });
      expect(verifyMessageReceipt(receipt, { verifierKeys: keys().verifierKeys })).toMatchObject({ ok: true, origin: logOrigin(TEST_PUBLIC_BASE_URL, ws.id) });
      expect(verifyMessageReceipt({ ...receipt, record: receipt.record.replace('"message.sent"', '"message.sent "') }, { verifierKeys: keys().verifierKeys })).toEqual({ ok: false, fault: "record_mismatch" });
      expect(verifyMessageReceipt(receipt, { verifierKeys: [] })).toEqual({ ok: false, fault: "checkpoint_signature" });
    });

    it("catches up a chain sealed before the tree existed, idle or not, checking each row against its link and changing no row", async () => {
      await append(7);
      const sealed = (await sealAuditChain(deps(), ws.id)) as number;
      const before = await latestAuditCheckpoint(deps(), { workspaceId: ws.id });
      const rowsBefore = await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 });
      await h.forgetTree(ws.id);
      expect(await h.stores.auditTree.latestCheckpoint({ workspaceId: ws.id })).toBeNull();
      expect(await h.stores.audit.workspacesToSeal({ limit: 100_000 })).toContain(ws.id);
      // Three leaves a call: the tree catches up across calls, sealing nothing new.
      expect(await sealAuditChain(deps(), ws.id, { maxRows: 3 })).toBe(0);
      expect((await latestAuditCheckpoint(deps(), { workspaceId: ws.id })).treeSize).toBe(3);
      expect(await h.stores.audit.workspacesToSeal({ limit: 100_000 })).toContain(ws.id);
      while ((await latestAuditCheckpoint(deps(), { workspaceId: ws.id })).treeSize < sealed) await sealAuditChain(deps(), ws.id, { maxRows: 3 });
      const after = await latestAuditCheckpoint(deps(), { workspaceId: ws.id });
      expect(after.rootHash).toEqual(before.rootHash);
      expect(after.note).toBe(before.note);
      expect(await h.stores.audit.workspacesToSeal({ limit: 100_000 })).not.toContain(ws.id);
      expect(await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 })).toEqual(rowsBefore);
      await append(2);
      expect(await sealAuditChain(deps(), ws.id)).toBe(2);
      expect((await latestAuditCheckpoint(deps(), { workspaceId: ws.id })).treeSize).toBe(sealed + 2);
    });

    it("stops the catch-up before a row that no longer matches its link, and keeps sealing the chain", async () => {
      const rows = await append(6);
      const sealed = (await sealAuditChain(deps(), ws.id)) as number;
      await h.forgetTree(ws.id);
      const chain = await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 });
      const tampered = chain.find((r) => r.id === rows[3]?.id) as { id: string; seq: number };
      await h.tamperRow(ws.id, tampered.id, { i: 99 });
      await sealAuditChain(deps(), ws.id);
      expect((await latestAuditCheckpoint(deps(), { workspaceId: ws.id })).treeSize).toBe(tampered.seq - 1);
      expect(await h.stores.audit.workspacesToSeal({ limit: 100_000 })).not.toContain(ws.id);
      await append(1);
      expect(await sealAuditChain(deps(), ws.id)).toBe(1);
      expect((await h.stores.audit.readChain({ workspaceId: ws.id, afterSeq: 0, limit: 100 })).length).toBe(sealed + 1);
      expect((await latestAuditCheckpoint(deps(), { workspaceId: ws.id })).treeSize).toBe(tampered.seq - 1);
    });

    it("keeps no tree hashes and no checkpoint when the sealing function throws", async () => {
      await append(2);
      await expect(
        h.stores.audit.withSealLock({ workspaceId: ws.id }, async (s) => {
          await s.appendTreeHashes({ firstLeaf: await s.treeSize(), hashes: [[new Uint8Array(32)]] });
          await s.publishCheckpoint({ checkpoint: { treeSize: 1, rootHash: new Uint8Array(32), note: "x\n\n\u2014 k AAAAAAA=\n", signedAt: new Date(base) } });
          throw new Error("sealer crashed");
        }),
      ).rejects.toThrow("sealer crashed");
      expect(await h.stores.auditTree.latestCheckpoint({ workspaceId: ws.id })).toBeNull();
      const sealed = (await sealAuditChain(deps(), ws.id)) as number;
      expect((await latestAuditCheckpoint(deps(), { workspaceId: ws.id })).rootHash).toEqual(await chainRoot(sealed));
      // A leaf is stored once.
      await expect(h.stores.audit.withSealLock({ workspaceId: ws.id }, (s) => s.appendTreeHashes({ firstLeaf: 0, hashes: [[new Uint8Array(32)]] }))).rejects.toThrow();
      expect(await proveTree(sealed, 1, (nodes) => h.stores.auditTree.readHashes({ workspaceId: ws.id, nodes }))).toBeDefined();
    });
  });
}
