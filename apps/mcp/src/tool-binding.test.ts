import type { Operation } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { restRequestOf } from "./rest-request.ts";
import { toolBindingFor, toolBindings } from "./tool-binding.ts";

// Stand-in operations with plain JSON Schema inputs: the binding only reads the schemas, the
// HTTP route and the idempotency rule.
function op(partial: Partial<Operation> & Pick<Operation, "name" | "input" | "http">): Operation {
  return {
    summary: `${partial.name} summary`,
    auth: { kind: "credential", tier: "operational", scope: null },
    idempotency: "none",
    mutates: true,
    output: { type: "object", properties: {} },
    successStatus: 200,
    handler: () => Promise.reject(new Error("not called")),
    ...partial,
  } as unknown as Operation;
}

const sendOp = op({
  name: "send",
  idempotency: "required",
  http: { method: "POST", path: "/v1/messages/send" },
  input: {
    type: "object",
    additionalProperties: false,
    required: ["envelope", "payload"],
    properties: {
      envelope: {
        type: "object",
        required: ["recipient", "template"],
        properties: { recipient: { type: "object", properties: { friendly_name: { type: "string" } } }, template: { type: "string" }, priority: { type: "string" } },
      },
      payload: { type: "object" },
    },
  } as never,
});

const ackOp = op({
  name: "ack",
  idempotency: "optional",
  http: { method: "POST", path: "/v1/messages/{message_id}/ack" },
  input: { type: "object", required: ["message_id", "lease_id"], properties: { message_id: { type: "string" }, lease_id: { type: "string" }, outcome_summary: { type: "string" } } } as never,
});

const listOp = op({
  name: "list_messages",
  mutates: false,
  http: { method: "GET", path: "/v1/messages", query: ["state", "limit"] },
  input: { type: "object", properties: { state: { type: "string" }, limit: { type: "integer" } } } as never,
});

const publicOp = op({ name: "version", auth: { kind: "public" }, http: { method: "GET", path: "/v1/version" }, input: { type: "object", properties: {} } as never });

describe("toolBindings", () => {
  it("makes one tool per credential operation, named and described after it, and none for public operations", () => {
    const tools = toolBindings([sendOp, ackOp, listOp, publicOp]).map((b) => b.tool);
    expect(tools.map((t) => t.name)).toEqual(["send", "ack", "list_messages"]);
    expect(tools[1]?.description).toBe("ack summary");
    expect(tools[2]?.annotations?.readOnlyHint).toBe(true);
    // readOnlyHint false is MCP's default: not said.
    expect(tools[1]?.annotations).toBeUndefined();
  });

  it("makes no tool of an operation whose surfaces leave out mcp, nor of a person's session operation", () => {
    const restOnly = op({ name: "rest_only", surfaces: ["rest", "dashboard"], http: { method: "GET", path: "/v1/x" }, input: { type: "object", properties: {} } as never });
    const mcpToo = op({ name: "mcp_too", surfaces: ["rest", "mcp"], http: { method: "GET", path: "/v1/y" }, input: { type: "object", properties: {} } as never });
    const person = op({ name: "person_only", auth: { kind: "person" } as never, http: { method: "GET", path: "/v1/z" }, input: { type: "object", properties: {} } as never });
    expect(toolBindings([restOnly, mcpToo, person, ackOp]).map((b) => b.tool.name)).toEqual(["mcp_too", "ack"]);
  });

  it("flattens the send envelope to the top level and maps the arguments back", () => {
    const b = toolBindingFor(sendOp)!;
    const schema = b.tool.inputSchema;
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(["idempotency_key", "payload", "priority", "recipient", "template"]);
    expect(schema.required?.sort()).toEqual(["payload", "recipient", "template"]);
    // Server-side checks (additionalProperties: false, lengths, patterns) are not published: the server refuses with SVC_MALFORMED_REQUEST.
    expect(schema["additionalProperties"]).toBeUndefined();
    const call = b.toOperationCall({ recipient: { friendly_name: "bob" }, template: "directive", priority: "high", payload: { a: 1 }, idempotency_key: "k1" }, () => "fresh");
    expect(call).toEqual({ input: { envelope: { recipient: { friendly_name: "bob" }, template: "directive", priority: "high" }, payload: { a: 1 } }, idempotencyKey: "k1" });
    expect(b.toToolPath("/envelope/template")).toBe("/template");
    expect(b.toToolPath("/envelope")).toBe("/");
    expect(b.toToolPath("/payload/a")).toBe("/payload/a");
  });

  it("generates a key for a required-idempotency call without one, and passes none for an optional one", () => {
    const send = toolBindingFor(sendOp)!;
    expect(send.toOperationCall({ template: "t" }, () => "fresh").idempotencyKey).toBe("fresh");
    const ack = toolBindingFor(ackOp)!;
    expect(ack.toOperationCall({ message_id: "m", lease_id: "l" }, () => "fresh").idempotencyKey).toBeNull();
    expect(ack.toOperationCall({ message_id: "m", lease_id: "l", idempotency_key: "k" }, () => "fresh")).toEqual({ input: { message_id: "m", lease_id: "l" }, idempotencyKey: "k" });
    expect(Object.keys(toolBindingFor(listOp)!.tool.inputSchema.properties ?? {})).not.toContain("idempotency_key");
  });

  it("refuses a non-string idempotency_key with SVC_MALFORMED_REQUEST", () => {
    const send = toolBindingFor(sendOp)!;
    expect(() => send.toOperationCall({ idempotency_key: 42 }, () => "fresh")).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST" }));
  });
});

describe("restRequestOf", () => {
  it("fills path parameters and keeps them and query parameters out of the body", () => {
    expect(restRequestOf(ackOp, { message_id: "01H/X", lease_id: "l", outcome_summary: "done" })).toEqual({
      method: "POST",
      path: "/v1/messages/01H%2FX/ack",
      body: { lease_id: "l", outcome_summary: "done" },
    });
    expect(restRequestOf(listOp, { state: "pending" })).toEqual({ method: "GET", path: "/v1/messages", body: null });
  });
});
