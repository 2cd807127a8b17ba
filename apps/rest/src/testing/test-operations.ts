import { defineOperation, DomainError } from "@agentq/core";
import type { Operation } from "@agentq/core";
import { Type } from "@sinclair/typebox";

/**
 * Operations that exist only in the REST edge's own tests: they exercise the derivation
 * mechanism (input assembly, auth, idempotency header, rendering, error mapping) without any
 * domain behind them. Handlers echo what they received.
 */
export const ECHO_OPERATION = defineOperation({
  name: "test_echo",
  summary: "Echoes its input and context.",
  http: { method: "POST", path: "/v1/test/items/{item_id}/echo", query: ["mode"] },
  auth: { kind: "credential", tier: "operational", scope: "send" },
  idempotency: "optional",
  mutates: true,
  input: Type.Object({ item_id: Type.String(), mode: Type.Optional(Type.String()), note: Type.Optional(Type.String()), nested: Type.Optional(Type.Unknown()) }),
  output: Type.Object({ input: Type.Unknown() }),
  successStatus: 201,
  async handler(_deps, ctx, input) {
    return { status: 201, body: { input, request_id: ctx.requestId, idempotency_key: ctx.idempotencyKey, fingerprint: ctx.fingerprint, account_id: ctx.principal.kind === "person" ? null : ctx.principal.account.id } };
  },
});

/** A read-only list route with declared query parameters. */
export const LIST_OPERATION = defineOperation({
  name: "test_list",
  summary: "Lists nothing, echoing its query.",
  http: { method: "GET", path: "/v1/test/items", query: ["limit", "cursor", "state"] },
  auth: { kind: "credential", tier: "operational", scope: null },
  idempotency: "none",
  mutates: false,
  input: Type.Object({ limit: Type.Optional(Type.String()), cursor: Type.Optional(Type.String()), state: Type.Optional(Type.String()) }),
  output: Type.Object({ items: Type.Array(Type.Unknown()), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
  successStatus: 200,
  async handler(_deps, ctx, input) {
    return { status: 200, body: { items: [], next_cursor: null, query: input, idempotency_key: ctx.idempotencyKey } };
  },
});

/** A mutation that requires an Idempotency-Key and an administrative credential. */
export const ADMIN_OPERATION = defineOperation({
  name: "test_admin",
  summary: "An administrative write.",
  http: { method: "POST", path: "/v1/test/items/{item_id}/freeze" },
  auth: { kind: "credential", tier: "administrative", scope: "manage_ai_accounts" },
  idempotency: "required",
  mutates: true,
  input: Type.Object({ item_id: Type.String() }, { additionalProperties: false }),
  output: Type.Object({ item_id: Type.String() }),
  successStatus: 200,
  async handler(_deps, _ctx, input) {
    return { status: 200, body: { item_id: input.item_id } };
  },
});

/** A public GET. */
export const PUBLIC_OPERATION = defineOperation({
  name: "test_public",
  summary: "Needs no credential.",
  http: { method: "GET", path: "/v1/test/public" },
  auth: { kind: "public" },
  idempotency: "none",
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({ ok: Type.Boolean() }),
  successStatus: 200,
  async handler() {
    return { status: 200, body: { ok: true } };
  },
});

/** Throws an unknown error carrying a secret in its message: it must never reach the client. */
export const FAULT_OPERATION = defineOperation({
  name: "test_fault",
  summary: "Fails with a server fault.",
  http: { method: "DELETE", path: "/v1/test/items/{item_id}" },
  auth: { kind: "credential", tier: "operational", scope: null },
  idempotency: "none",
  mutates: true,
  input: Type.Object({ item_id: Type.String() }),
  output: Type.Object({}),
  successStatus: 200,
  async handler(_deps, _ctx, input) {
    if (input.item_id === "string") throw "a thrown string with SECRET-42"; // eslint-disable-line @typescript-eslint/only-throw-error
    throw new Error("connection to db-internal-7 failed: SECRET-42");
  },
});

/** Refuses with a retryable DomainError carrying Retry-After. */
export const RATE_LIMITED_OPERATION = defineOperation({
  name: "test_rate_limited",
  summary: "Always rate limited.",
  http: { method: "POST", path: "/v1/test/items/{item_id}/nack" },
  auth: { kind: "credential", tier: "operational", scope: null },
  idempotency: "none",
  mutates: true,
  input: Type.Object({ item_id: Type.String() }),
  output: Type.Object({}),
  successStatus: 200,
  async handler() {
    throw new DomainError("SVC_NACK_RATE_LIMITED", "Too soon.", undefined, { retryAfterSeconds: 7 });
  },
});

/** Every test operation, in catalogue order. */
export const TEST_OPERATIONS: readonly Operation[] = [ECHO_OPERATION, LIST_OPERATION, ADMIN_OPERATION, PUBLIC_OPERATION, FAULT_OPERATION, RATE_LIMITED_OPERATION];
