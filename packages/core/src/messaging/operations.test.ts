import { FormatRegistry } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext } from "../testing/principal-fixtures.ts";
import { findOperation, OPERATIONS } from "../catalogue.ts";
import { executeOperation } from "../execution/execute.ts";
import { MESSAGING_OPERATIONS } from "./operations.ts";

// TypeBox checks `format` only for registered formats; outputs carry ISO 8601 timestamps.
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v));

const route = (name: string) => {
  const op = findOperation(name);
  if (!op) throw new Error(`no operation ${name}`);
  return op;
};

describe("messaging operations in the catalogue", () => {
  it("declares every messaging operation with its route, scope and idempotency rule", () => {
    const table = MESSAGING_OPERATIONS.map((op) => [op.name, op.http.method, op.http.path, op.auth.kind === "credential" ? `${op.auth.tier}:${op.auth.scope}` : "public", op.idempotency, op.successStatus]);
    expect(table).toEqual([
      ["send", "POST", "/v1/messages/send", "operational:send", "required", 201],
      ["validate", "POST", "/v1/messages/validate", "operational:validate", "none", 200],
      ["get_pending", "POST", "/v1/messages/get-pending", "operational:get_pending", "none", 200],
      ["ack", "POST", "/v1/messages/{message_id}/ack", "operational:ack", "none", 200],
      ["ack_batch", "POST", "/v1/messages/ack", "operational:ack", "none", 200],
      ["nack", "POST", "/v1/messages/{message_id}/nack", "operational:nack", "none", 200],
      ["extend_lease", "POST", "/v1/messages/{message_id}/extend_lease", "operational:ack", "none", 200],
      ["hand_off", "POST", "/v1/messages/{message_id}/hand-off", "operational:ack", "none", 200],
      ["list_messages", "GET", "/v1/messages", "operational:null", "none", 200],
      ["get_message", "GET", "/v1/messages/{message_id}", "operational:null", "none", 200],
      ["get_thread", "GET", "/v1/threads/{thread_id}", "operational:null", "none", 200],
      ["get_message_payload", "GET", "/v1/messages/{message_id}/payload", "administrative:null", "none", 200],
      ["list_recipients", "GET", "/v1/recipients", "operational:list_recipients", "none", 200],
      ["list_templates", "GET", "/v1/templates", "operational:list_templates", "none", 200],
      ["get_template", "GET", "/v1/templates/{name}", "operational:get_template", "none", 200],
      ["list_dead_letters", "GET", "/v1/dead-letters", "administrative:null", "none", 200],
      ["count_waiting_messages", "GET", "/v1/message-counts", "administrative:null", "none", 200],
      ["release_dead_letter", "POST", "/v1/dead-letters/{message_id}/release", "administrative:null", "optional", 200],
      ["purge_dead_letter", "POST", "/v1/dead-letters/{message_id}/purge", "administrative:null", "optional", 200],
      ["list_approvals", "GET", "/v1/approvals", "administrative:approve_messages", "none", 200],
      ["get_approval", "GET", "/v1/approvals/{message_id}", "administrative:approve_messages", "none", 200],
      ["approve_message", "POST", "/v1/messages/{message_id}/approve", "administrative:approve_messages", "optional", 200],
      ["reject_message", "POST", "/v1/messages/{message_id}/reject", "administrative:approve_messages", "optional", 200],
    ]);
    for (const op of MESSAGING_OPERATIONS) expect(OPERATIONS).toContain(op);
    const names = OPERATIONS.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("every path parameter and query parameter is an input property; every input schema is plain JSON with descriptions on top-level fields", () => {
    for (const op of MESSAGING_OPERATIONS) {
      const props = Object.keys(op.input.properties);
      for (const [, p] of op.http.path.matchAll(/\{(\w+)\}/g)) expect(props).toContain(p);
      for (const q of op.http.query ?? []) expect(props).toContain(q);
      const plain = JSON.parse(JSON.stringify(op.input)) as { properties: Record<string, { description?: string }> };
      for (const [name, schema] of Object.entries(plain.properties)) expect(schema.description ?? (name === "envelope" ? "nested" : undefined), `${op.name}.${name}`).toBeTruthy();
    }
  });

  it("runs end to end through executeOperation: send -> get_pending -> ack, outputs matching their schemas", async () => {
    const s = await createMessagingScenario();
    const body = { envelope: { recipient: { friendly_name: "bob" }, template: "directive" }, payload: { directive_kind: "k", summary: "s", instructions: "i" } };
    const sent = await executeOperation(s.world.deps, route("send"), callContext(s.alice, { idempotencyKey: "op-1", fingerprint: requestFingerprint({ method: "POST", path: "/v1/messages/send", body }) }), body);
    expect(sent.status).toBe(201);
    expect(Value.Check(route("send").output, sent.body)).toBe(true);
    const claimed = await executeOperation(s.world.deps, route("get_pending"), callContext(s.bob), { max: 5 });
    expect(Value.Check(route("get_pending").output, claimed.body)).toBe(true);
    const item = (claimed.body as { items: { envelope: { message_id: string }; lease: { lease_id: string } }[] }).items[0];
    const extended = await executeOperation(s.world.deps, route("extend_lease"), callContext(s.bob), { message_id: item?.envelope.message_id, lease_id: item?.lease.lease_id, visibility_timeout: "PT300S" });
    expect(Value.Check(route("extend_lease").output, extended.body)).toBe(true);
    const acked = await executeOperation(s.world.deps, route("ack"), callContext(s.bob), { message_id: item?.envelope.message_id, lease_id: item?.lease.lease_id });
    expect(Value.Check(route("ack").output, acked.body)).toBe(true);
    for (const [name, input, as] of [["get_message", { message_id: item?.envelope.message_id }, s.alice], ["list_messages", { role: "sent", limit: "10" }, s.alice], ["list_recipients", {}, s.alice], ["list_templates", {}, s.alice], ["get_template", { name: "result" }, s.alice], ["validate", body, s.alice], ["list_dead_letters", {}, s.admin], ["count_waiting_messages", {}, s.admin]] as const) {
      const r = await executeOperation(s.world.deps, route(name), callContext(as), input);
      expect(Value.Check(route(name).output, r.body), name).toBe(true);
    }
  });

  it("list_messages filters by recipient, sender and template as the envelope names them", async () => {
    const s = await createMessagingScenario();
    const body = { envelope: { recipient: { friendly_name: "bob" }, template: "directive" }, payload: { directive_kind: "task", summary: "s", instructions: "i" } };
    await executeOperation(s.world.deps, route("send"), callContext(s.alice, { idempotencyKey: "k1", fingerprint: requestFingerprint({ method: "POST", path: "/v1/messages/send", body }) }), body);
    const count = async (input: Record<string, unknown>) => ((await executeOperation(s.world.deps, route("list_messages"), callContext(s.alice), input)).body as { items: unknown[] }).items.length;
    expect(await count({ recipient: "bob" })).toBe(1);
    expect(await count({ recipient: "bob", sender: "alice", template: "directive" })).toBe(1);
    expect(await count({ recipient: "carol" })).toBe(0);
    expect(await count({ template: "result" })).toBe(0);
  });

  it("send without an Idempotency-Key is SVC_IDEMPOTENCY_KEY_REQUIRED; wrong types are SVC_MALFORMED_REQUEST; dead letters need an administrative credential", async () => {
    const s = await createMessagingScenario();
    const code = async (p: Promise<unknown>) => p.then(() => "no error", (e: unknown) => (isDomainError(e) ? e.code : "not a DomainError"));
    expect(await code(executeOperation(s.world.deps, route("send"), callContext(s.alice), { envelope: { recipient: { friendly_name: "bob" }, template: "directive" }, payload: {} }))).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    expect(await code(executeOperation(s.world.deps, route("send"), callContext(s.alice, { idempotencyKey: "k" }), { envelope: { recipient: "bob", template: "directive" }, payload: {} }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await code(executeOperation(s.world.deps, route("get_pending"), callContext(s.bob), { max: "ten" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await code(executeOperation(s.world.deps, route("list_dead_letters"), callContext(s.bob), {}))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await code(executeOperation(s.world.deps, route("count_waiting_messages"), callContext(s.bob), {}))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await code(executeOperation(s.world.deps, route("send"), callContext(s.admin, { idempotencyKey: "k" }), {}))).toBe("SVC_SCOPE_INSUFFICIENT");
  });
});
