import { describe, expect, it } from "vitest";
import { callOperation, refusalOf, sendBody } from "../testing/guard-rail-calls.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { listSanctionsScreen, parseSanctionsList } from "./sanctions-list.ts";

describe("sanctions screening", () => {
  it("parses JSON and CSV lists and refuses entries that name nobody or carry another status", () => {
    expect(parseSanctionsList('[{"ai_account_id":"A1","status":"blocked"}]')).toEqual([{ ai_account_id: "A1", status: "blocked" }]);
    expect(parseSanctionsList("status,workspace_id,name\nreview,W1,\nblocked,,evil\n")).toEqual([
      { status: "review", workspace_id: "W1" },
      { status: "blocked", name: "evil" },
    ]);
    expect(parseSanctionsList("")).toEqual([]);
    expect(() => parseSanctionsList('[{"status":"blocked"}]')).toThrow();
    expect(() => parseSanctionsList('[{"name":"x","status":"maybe"}]')).toThrow();
  });

  it("refuses a send whose sender or recipient is listed (blocked wins over review), audits it operator-significant, and validate answers the same", async () => {
    const s = await createMessagingScenario();
    const ws = s.alice.workspace.id;
    const base = s.world.deps;
    const withList = (text: string) => ({ ...base, sanctions: listSanctionsScreen(parseSanctionsList(text)) });

    expect(await refusalOf(callOperation(withList(`[{"ai_account_id":"${s.bob.account.id}","status":"review"}]`), s.alice, "send", sendBody()))).toMatchObject({ code: "SVC_SANCTIONS_REVIEW_PENDING", details: { participant: "recipient" } });
    expect(await refusalOf(callOperation(withList(`[{"workspace_id":"${ws}","name":"alice","status":"blocked"},{"ai_account_id":"${s.bob.account.id}","status":"review"}]`), s.alice, "send", sendBody()))).toMatchObject({ code: "SVC_SANCTIONS_BLOCKED", details: { participant: "sender" } });
    expect(await refusalOf(callOperation(withList(`[{"workspace_id":"${ws}","status":"blocked"}]`), s.alice, "validate", sendBody()))).toMatchObject({ code: "SVC_SANCTIONS_BLOCKED" });
    expect((await callOperation(withList(`[{"workspace_id":"other","status":"blocked"},{"name":"carol","status":"blocked"}]`), s.alice, "send", sendBody())).status).toBe(201);

    const all = await base.stores.audit.list({ workspaceId: ws, activity: "message.send_refused", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
    expect(all.map((r) => [r.details["code"], r.operatorSignificant])).toEqual([
      ["SVC_SANCTIONS_BLOCKED", true],
      ["SVC_SANCTIONS_REVIEW_PENDING", true],
    ]);
    const visible = await base.stores.audit.list({ workspaceId: ws, activity: "message.send_refused", messageId: null, includeOperatorSignificant: false, after: null, limit: 10 });
    expect(visible).toEqual([]);
  });
});
