import { describe, expect, it } from "vitest";
import { sealAuditChains } from "./seal-audit-chain.ts";
import { verifyAuditExport } from "./verify-audit-export.ts";
import type { NewAuditEntry } from "./audit-entry.ts";
import { callOperation, refusalCode } from "../testing/guard-rail-calls.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { seedPrincipal } from "../testing/principal-fixtures.ts";

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
});
