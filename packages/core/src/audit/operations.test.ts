import { describe, expect, it } from "vitest";
import { sealAuditChains } from "./seal-audit-chain.ts";
import { verifyAuditExport } from "./verify-audit-export.ts";
import type { NewAuditEntry } from "./audit-entry.ts";
import { callOperation, refusalCode, refusalOf } from "../testing/guard-rail-calls.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { auditLogKeys } from "./transparency-log/log-key.ts";
import { verifyConsistencyBundle, verifyMessageReceipt } from "./transparency-log/verify-receipt.ts";

describe("audit log operations", () => {
  it("browse_audit_log: newest first, paged, filtered by activity and by message; operator-significant rows withheld", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const m1 = await s.send();
    await s.send();
    await s.claim();
    await deps.stores.audit.append({ entry: { id: deps.ids.next(), workspaceId: s.alice.workspace.id, occurredAt: deps.clock.now(), activity: "operator.note", actorAccountId: null, actorCredentialId: null, subjectType: "workspace", subjectId: s.alice.workspace.id, messageId: null, details: {}, operatorSignificant: true, requestId: null } });
    const all = (await callOperation(deps, s.admin, "browse_audit_log", {})).body as { items: { activity: string; message_id: string | null; occurred_at: string }[]; next_cursor: string | null };
    expect(all.items.map((r) => r.activity)).not.toContain("operator.note");
    expect(all.items.map((r) => r.activity)).toEqual(["message.claimed", "message.claimed", "message.sent", "message.sent"]);
    const sent = (await callOperation(deps, s.admin, "browse_audit_log", { activity: "message.sent" })).body as { items: unknown[] };
    expect(sent.items).toHaveLength(2);
    const claimedOrSent = (await callOperation(deps, s.admin, "browse_audit_log", { activity_contains: "message." })).body as { items: unknown[] };
    expect(claimedOrSent.items).toHaveLength(4);
    const claims = (await callOperation(deps, s.admin, "browse_audit_log", { activity_contains: "claim" })).body as { items: { activity: string }[] };
    expect(claims.items.map((r) => r.activity)).toEqual(["message.claimed", "message.claimed"]);
    expect(((await callOperation(deps, s.admin, "browse_audit_log", { activity_contains: "operator" })).body as { items: unknown[] }).items).toEqual([]);
    const one = (await callOperation(deps, s.admin, "browse_audit_log", { message_id: m1 })).body as { items: { message_id: string }[] };
    expect(one.items.map((r) => r.message_id)).toEqual([m1, m1]);
    const p1 = (await callOperation(deps, s.admin, "browse_audit_log", { limit: 3 })).body as { items: unknown[]; next_cursor: string };
    expect(p1.items).toHaveLength(3);
    const p2 = (await callOperation(deps, s.admin, "browse_audit_log", { limit: 3, cursor: p1.next_cursor })).body as { items: unknown[]; next_cursor: string | null };
    expect(p2).toMatchObject({ next_cursor: null });
    expect(p2.items).toHaveLength(1);
    expect(await refusalCode(callOperation(deps, s.admin, "browse_audit_log", { limit: 3, cursor: p1.next_cursor, activity: "message.sent" }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await refusalCode(callOperation(deps, s.admin, "browse_audit_log", { message_id: "nope" }))).toBe("SVC_MALFORMED_REQUEST");
  });

  it("needs scope view_audit_log, or an administrative credential", async () => {
    const s = await createMessagingScenario();
    const reader = await seedPrincipal(s.world.deps.stores, s.alice.workspace, { friendlyName: "reader", scopes: ["view_audit_log"] });
    const plain = await seedPrincipal(s.world.deps.stores, s.alice.workspace, { friendlyName: "plain", scopes: ["send"] });
    for (const name of ["browse_audit_log", "verify_audit_log", "export_audit_chain"]) {
      expect((await callOperation(s.world.deps, reader, name, {})).status).toBe(200);
      expect((await callOperation(s.world.deps, s.admin, name, {})).status).toBe(200);
      expect(await refusalCode(callOperation(s.world.deps, plain, name, {}))).toBe("SVC_SCOPE_INSUFFICIENT");
    }
  });

  it("verification names a tampered row; the export verifies offline (withheld rows as links) and names a tampered line", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    await s.send();
    await deps.stores.audit.append({ entry: { id: deps.ids.next(), workspaceId: s.alice.workspace.id, occurredAt: deps.clock.now(), activity: "operator.note", actorAccountId: null, actorCredentialId: null, subjectType: "workspace", subjectId: s.alice.workspace.id, messageId: null, details: {}, operatorSignificant: true, requestId: null } });
    s.world.clock.advance(1000);
    await s.send();
    await s.claim();
    await sealAuditChains(deps);
    expect((await callOperation(deps, s.admin, "verify_audit_log", {})).body).toMatchObject({ verified: true, checked: 5, head: { seq: 5 }, first_bad_row: null });

    const lines: string[] = [];
    let cursor: string | null = null;
    do {
      const page = (await callOperation(deps, s.admin, "export_audit_chain", { limit: 2, ...(cursor ? { cursor } : {}) })).body as { items: unknown[]; next_cursor: string | null };
      lines.push(...page.items.map((i) => JSON.stringify(i)));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(lines).toHaveLength(5);
    expect(lines.filter((l) => l.includes('"withheld":true'))).toHaveLength(1);
    expect(verifyAuditExport(lines)).toMatchObject({ ok: true, rows: 4, withheld: 1, head: { seq: 5 } });
    const tampered = lines.map((l, i) => (i === 3 ? JSON.stringify({ ...(JSON.parse(l) as object), details: { forged: true } }) : l));
    expect(verifyAuditExport(tampered)).toMatchObject({ ok: false, line: 4, seq: 4, reason: "changed" });
    expect(verifyAuditExport(lines.filter((_, i) => i !== 1))).toMatchObject({ ok: false, reason: "removed" });
    expect(verifyAuditExport(["{not json"])).toMatchObject({ ok: false, line: 1, reason: "unreadable" });

    // Tamper with the stored row itself.
    const { audit: table, auditChain } = s.world.tables.messaging;
    const link = auditChain.values().find((l) => l.workspaceId === s.alice.workspace.id && l.seq === 3);
    const row = table.get(link?.auditId ?? "") as NewAuditEntry;
    table.set(null, row.id, { ...row, details: { forged: true } });
    expect((await callOperation(deps, s.admin, "verify_audit_log", {})).body).toMatchObject({ verified: false, checked: 2, head: { seq: 5 }, first_bad_row: { id: row.id, seq: 3, reason: "changed" } });
  });

  describe("receipts: checkpoint, proofs and a message's receipt (DESIGN §2c Receipts)", () => {
    it("serve the latest checkpoint and proofs that verify against it, and refuse sizes out of range with details.field", async () => {
      const s = await createMessagingScenario();
      const deps = s.world.deps;
      expect(await refusalOf(callOperation(deps, s.admin, "get_audit_checkpoint", {}))).toMatchObject({ code: "SVC_RESOURCE_NOT_FOUND", details: { reason: "no_checkpoint" } });
      await s.send();
      await s.send();
      await sealAuditChains(deps);
      const older = (await callOperation(deps, s.admin, "get_audit_checkpoint", {})).body as { checkpoint: string; origin: string; tree_size: number; root_hash: string };
      expect(older.tree_size).toBe(2);
      expect(older.checkpoint.startsWith(`${older.origin}\n2\n${older.root_hash}\n\n`)).toBe(true);
      expect(older.origin.endsWith(`/agentq/${s.alice.workspace.id}`)).toBe(true);
      await s.send();
      await s.send();
      await sealAuditChains(deps);
      const latest = (await callOperation(deps, s.admin, "get_audit_checkpoint", {})).body as { checkpoint: string; tree_size: number };
      expect(latest.tree_size).toBe(4);

      // Query strings arrive as text, MCP arguments as numbers: both are read.
      const inclusion = (await callOperation(deps, s.admin, "get_audit_inclusion_proof", { seq: "2", tree_size: "4" })).body as { seq: number; tree_size: number; hashes: string[] };
      expect(inclusion).toMatchObject({ seq: 2, leaf_index: 1, tree_size: 4 });
      expect((await callOperation(deps, s.admin, "get_audit_inclusion_proof", { seq: 2 })).body).toEqual(inclusion);
      const consistency = (await callOperation(deps, s.admin, "get_audit_consistency_proof", { from: older.tree_size })).body as { from: number; to: number; hashes: string[] };
      expect(consistency).toMatchObject({ from: 2, to: 4 });
      const keys = auditLogKeys(deps).verifierKeys;
      expect(verifyConsistencyBundle({ old_checkpoint: older.checkpoint, new_checkpoint: latest.checkpoint, consistency }, { verifierKeys: keys })).toMatchObject({ ok: true, treeSize: 4 });

      const bad = async (name: string, input: Record<string, unknown>) => refusalOf(callOperation(deps, s.admin, name, input));
      for (const seq of [0, -1, "0", "1.5", "x", "1e3", " 1", "9999999999999999"]) expect(await bad("get_audit_inclusion_proof", { seq }), String(seq)).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "seq" } });
      expect(await bad("get_audit_inclusion_proof", { seq: "1".repeat(17) })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { errors: [{ path: "/seq" }] } });
      expect(await bad("get_audit_inclusion_proof", { seq: 3, tree_size: 2 })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "tree_size" } });
      expect(await bad("get_audit_inclusion_proof", { seq: 1, tree_size: 5 })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "tree_size", reason: "beyond_checkpoint", tree_size: 4 } });
      expect(await bad("get_audit_inclusion_proof", { seq: 5 })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "seq", reason: "beyond_checkpoint", tree_size: 4 } });
      expect(await bad("get_audit_consistency_proof", { from: 0 })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "from" } });
      expect(await bad("get_audit_consistency_proof", { from: 3, to: 2 })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "to" } });
      expect(await bad("get_audit_consistency_proof", { from: 2, to: 9 })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "to", reason: "beyond_checkpoint" } });
      expect(await bad("get_audit_consistency_proof", { from: 9 })).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "from", reason: "beyond_checkpoint" } });

      // The audit log's access: scope view_audit_log or an administrative credential.
      const plain = await seedPrincipal(deps.stores, s.alice.workspace, { friendlyName: "plain", scopes: ["send"] });
      for (const [name, input] of [["get_audit_checkpoint", {}], ["get_audit_inclusion_proof", { seq: 1 }], ["get_audit_consistency_proof", { from: 1 }]] as const) {
        expect(await refusalCode(callOperation(deps, plain, name, input))).toBe("SVC_SCOPE_INSUFFICIENT");
      }
    });

    it("a message's receipt: its sender, its recipient and the audit log's readers get it; other accounts and other workspaces get 404", async () => {
      const s = await createMessagingScenario();
      const deps = s.world.deps;
      // Accounts without view_audit_log: they see only their own messages' receipts.
      const sender = await seedPrincipal(deps.stores, s.alice.workspace, { friendlyName: "carol", scopes: ["send"] });
      const recipient = await seedPrincipal(deps.stores, s.alice.workspace, { friendlyName: "dave", scopes: ["get_pending"] });
      const bystander = await seedPrincipal(deps.stores, s.alice.workspace, { friendlyName: "erin", scopes: ["send", "get_pending"] });
      const messageId = await s.send({ recipient: { friendly_name: "dave" } }, sender);
      expect(await refusalOf(callOperation(deps, sender, "get_message_receipt", { message_id: messageId }))).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "not_sealed_yet" } });
      await sealAuditChains(deps);
      const keys = auditLogKeys(deps).verifierKeys;
      for (const who of [sender, recipient, s.admin, s.alice]) {
        const receipt = (await callOperation(deps, who, "get_message_receipt", { message_id: messageId })).body as { message_id: string; verifier_keys: string[] };
        expect(receipt.message_id).toBe(messageId);
        expect(receipt.verifier_keys).toEqual(keys);
        expect(verifyMessageReceipt(receipt, { verifierKeys: keys })).toMatchObject({ ok: true });
      }
      expect(await refusalCode(callOperation(deps, bystander, "get_message_receipt", { message_id: messageId }))).toBe("SVC_RESOURCE_NOT_FOUND");
      expect(await refusalCode(callOperation(deps, sender, "get_message_receipt", { message_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" }))).toBe("SVC_RESOURCE_NOT_FOUND");
      expect(await refusalCode(callOperation(deps, sender, "get_message_receipt", { message_id: "not-a-ulid" }))).toBe("SVC_RESOURCE_NOT_FOUND");
      // Another workspace's administrator and audit reader: as for an unknown id.
      const other = await seedTestWorkspace(deps.stores);
      for (const who of [await seedPrincipal(deps.stores, other, { friendlyName: "mallory", tier: "administrative", scopes: [] }), await seedPrincipal(deps.stores, other, { friendlyName: "oscar" })]) {
        expect(await refusalCode(callOperation(deps, who, "get_message_receipt", { message_id: messageId }))).toBe("SVC_RESOURCE_NOT_FOUND");
      }
    });
  });
});
