import { auditLogKeys, sealAuditChains, verifyConsistencyBundle, verifyMessageReceipt } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "./openapi.ts";
import { OPERATIONS } from "@agentq/core";
import { LOG_KEY_PATH, PLAIN_ROUTES } from "./app.ts";
import { call } from "./testing/call.ts";
import { bootstrap, createAgent, createInMemoryRestApp, directiveTo } from "./testing/rest-scenario.ts";

// The receipt routes (DESIGN §2c Receipts) over REST: the checkpoint as text/plain, the proofs
// as JSON from query strings, a message's receipt for whoever may see the message, and the
// public verifier key document.
describe("receipt routes", () => {
  async function world() {
    const { world, app } = createInMemoryRestApp();
    const a = await bootstrap(world, "alpha");
    const sender = await createAgent(app, a, "sender", ["send"]);
    const recipient = await createAgent(app, a, "recipient", ["get_pending"]);
    const bystander = await createAgent(app, a, "bystander", ["send", "get_pending"]);
    const send = async () => {
      const sent = await call(app, "POST", "/v1/messages/send", { authorization: sender.authorization, key: `k-${Math.random()}`, body: directiveTo("recipient") });
      expect(sent.status, sent.text).toBe(201);
      return sent.body.message_id as string;
    };
    return { world, app, a, sender, recipient, bystander, send };
  }
  const text = async (res: Response) => ({ status: res.status, type: res.headers.get("content-type"), cache: res.headers.get("cache-control"), text: await res.text() });

  it("GET /v1/audit-log/checkpoint answers the signed note as text/plain; the proofs verify against the checkpoints a client kept", async () => {
    const w = await world();
    const get = (path: string) => w.app.request(path, { headers: { Authorization: w.a.authorization } });
    expect(await call(w.app, "GET", "/v1/audit-log/checkpoint", { authorization: w.a.authorization })).toMatchObject({ status: 404, body: { error: { code: "SVC_RESOURCE_NOT_FOUND", details: { reason: "no_checkpoint" } } } });
    await w.send();
    await sealAuditChains(w.world.deps);
    const older = await text(await get("/v1/audit-log/checkpoint"));
    expect(older).toMatchObject({ status: 200, type: "text/plain; charset=utf-8", cache: "no-store" });
    const [origin, size] = older.text.split("\n");
    expect(origin).toBe(`${new URL(w.world.deps.publicBaseUrl ?? "").host}/agentq/${w.a.workspace_id}`);
    await w.send();
    await w.send();
    await sealAuditChains(w.world.deps);
    const newer = await text(await get("/v1/audit-log/checkpoint"));
    const newSize = Number(newer.text.split("\n")[1]);
    expect(newSize).toBeGreaterThan(Number(size));

    const consistency = await call(w.app, "GET", `/v1/audit-log/proof/consistency?from=${size}&to=${newSize}`, { authorization: w.a.authorization });
    expect(consistency.status, consistency.text).toBe(200);
    expect(consistency.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const keys = auditLogKeys(w.world.deps).verifierKeys;
    expect(verifyConsistencyBundle({ old_checkpoint: older.text, new_checkpoint: newer.text, consistency: consistency.body }, { verifierKeys: keys })).toMatchObject({ ok: true, treeSize: newSize });
    const inclusion = await call(w.app, "GET", `/v1/audit-log/proof/inclusion?seq=1&tree_size=${newSize}`, { authorization: w.a.authorization });
    expect(inclusion).toMatchObject({ status: 200, body: { seq: 1, leaf_index: 0, tree_size: newSize } });

    // Bounds: out of range and beyond the latest checkpoint are 400 naming the parameter.
    for (const [query, field] of [["seq=0", "seq"], ["seq=abc", "seq"], ["seq=1&tree_size=-1", "tree_size"], [`seq=1&tree_size=${newSize + 1}`, "tree_size"], ["from=0", "from"], [`from=1&to=${newSize + 1}`, "to"]] as const) {
      const path = query.startsWith("from") ? "consistency" : "inclusion";
      const res = await call(w.app, "GET", `/v1/audit-log/proof/${path}?${query}`, { authorization: w.a.authorization });
      expect(res, query).toMatchObject({ status: 400, body: { error: { code: "SVC_MALFORMED_REQUEST", details: { field } } } });
    }
    expect((await call(w.app, "GET", "/v1/audit-log/proof/inclusion", { authorization: w.a.authorization })).body.error.code).toBe("SVC_MALFORMED_REQUEST");
    // The audit log's access: a credential without view_audit_log is refused.
    expect((await call(w.app, "GET", "/v1/audit-log/checkpoint", { authorization: w.sender.authorization })).body.error.code).toBe("SVC_SCOPE_INSUFFICIENT");
  });

  it("GET /v1/messages/{id}/receipt: the sender, the recipient and the administrator get a receipt that verifies; a bystander and another workspace get 404", async () => {
    const w = await world();
    const messageId = await w.send();
    expect((await call(w.app, "GET", `/v1/messages/${messageId}/receipt`, { authorization: w.sender.authorization })).body.error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "not_sealed_yet" } });
    await sealAuditChains(w.world.deps);
    const keyDocument = await text(await w.app.request(LOG_KEY_PATH));
    expect(keyDocument).toMatchObject({ status: 200, type: "text/plain; charset=utf-8" });
    const keys = keyDocument.text.trimEnd().split("\n");
    expect(keys).toEqual(auditLogKeys(w.world.deps).verifierKeys);
    for (const who of [w.sender, w.recipient, w.a]) {
      const receipt = await call(w.app, "GET", `/v1/messages/${messageId}/receipt`, { authorization: who.authorization });
      expect(receipt.status, receipt.text).toBe(200);
      expect(receipt.body).toMatchObject({ message_id: messageId, verifier_keys: keys });
      expect(verifyMessageReceipt(receipt.body, { verifierKeys: keys })).toMatchObject({ ok: true });
    }
    expect((await call(w.app, "GET", `/v1/messages/${messageId}/receipt`, { authorization: w.bystander.authorization })).body.error.code).toBe("SVC_RESOURCE_NOT_FOUND");
    const b = await bootstrap(w.world, "bravo");
    expect((await call(w.app, "GET", `/v1/messages/${messageId}/receipt`, { authorization: b.authorization })).body.error.code).toBe("SVC_RESOURCE_NOT_FOUND");
  });

  it("the OpenAPI document describes the checkpoint and the key document as text/plain", () => {
    const doc = buildOpenApiDocument(OPERATIONS, PLAIN_ROUTES, { title: "t", version: "1" }) as { paths: Record<string, Record<string, any>> };
    expect(Object.keys(doc.paths["/v1/audit-log/checkpoint"]?.["get"]?.responses["200"].content)).toEqual(["text/plain"]);
    expect(Object.keys(doc.paths[LOG_KEY_PATH]?.["get"]?.responses["200"].content)).toEqual(["text/plain"]);
    expect(doc.paths["/v1/audit-log/proof/inclusion"]?.["get"]?.parameters.map((p: { name: string }) => p.name)).toEqual(["seq", "tree_size"]);
    expect(doc.paths["/v1/messages/{message_id}/receipt"]?.["get"]?.operationId).toBe("get_message_receipt");
  });
});
