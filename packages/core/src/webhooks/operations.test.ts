import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { createAuthenticator, type Authenticator } from "../access/authenticate.ts";
import type { Principal } from "../access/model.ts";
import { isDomainError } from "../errors.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { sendMessage } from "../messaging/send-message.ts";
import type { WebhookTransport } from "../ports.ts";
import { bootstrapScenarioWorkspace, scenarioContext, seedAccount, seedTokenCredential, type AccessScenarioWorkspace } from "../testing/access-scenario.ts";
import { createInMemoryDeps, type InMemoryWorld } from "../testing/create-in-memory-deps.ts";
import { toBase64 } from "./base64.ts";
import { dispatchDueDeliveries } from "./dispatch-deliveries.ts";
import { signingKeyFromSeal } from "./signing.ts";
import type { DeliveryView, WebhookView } from "./webhook-views.ts";
import { executeOperation } from "../execution/execute.ts";
import { WEBHOOK_OPERATIONS } from "./operations.ts";

const anyString: unknown = expect.any(String);

type PostResult = Awaited<ReturnType<WebhookTransport["post"]>>;

/** A transport that records every request and answers from a script (default 204). */
class ScriptedTransport implements WebhookTransport {
  readonly requests: { url: string; headers: Record<string, string>; body: string }[] = [];
  next: PostResult[] = [];
  async post(p: { url: string; headers: Record<string, string>; body: string; timeoutMs: number }): Promise<PostResult> {
    this.requests.push({ url: p.url, headers: p.headers, body: p.body });
    return this.next.shift() ?? { kind: "response", status: 204 };
  }
}

interface Env {
  world: InMemoryWorld;
  auth: Authenticator;
  transport: ScriptedTransport;
  a: AccessScenarioWorkspace;
  b: AccessScenarioWorkspace;
  recipientId: string;
}

interface Keyed {
  webhook: WebhookView;
  signing_secret: string;
}

async function setup(): Promise<Env> {
  const world = createInMemoryDeps();
  const transport = new ScriptedTransport();
  world.deps.webhookTransport = transport;
  const auth = createAuthenticator(world.deps);
  const a = await bootstrapScenarioWorkspace(world, "alpha", auth);
  const b = await bootstrapScenarioWorkspace(world, "beta", auth);
  const recipient = await seedAccount(world, a.workspace_id, { friendlyName: "worker" });
  return { world, auth, transport, a, b, recipientId: recipient.id };
}

let keyCounter = 0;
const key = () => `key-${++keyCounter}`;

async function call<T = unknown>(env: Env, principal: Principal, name: string, input: Record<string, unknown> = {}, opts: { key?: string | null } = {}): Promise<{ status: number; body: T }> {
  const op = WEBHOOK_OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(name);
  const path = op.http.path.replace(/\{(\w+)\}/g, (_m, p: string) => String(input[p]));
  const body = op.http.method === "GET" ? null : Object.fromEntries(Object.entries(input).filter(([k]) => !op.http.path.includes(`{${k}}`)));
  const idempotencyKey = opts.key === undefined ? (op.mutates ? key() : null) : opts.key;
  const ctx = { principal, requestId: `req-${env.world.deps.ids.next()}`, idempotencyKey, fingerprint: requestFingerprint({ method: op.http.method, path, body }) };
  return (await executeOperation(env.world.deps, op, ctx, input)) as { status: number; body: T };
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; details?: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return { code: e.code, ...(e.details === undefined ? {} : { details: e.details }) };
    throw e;
  }
  return { code: "no error" };
}

/** Verifies a Standard Webhooks signature header with one secret (the receiver's check, inline). */
function signedBy(secret: string, headers: Record<string, string>, body: string): boolean {
  const keyBytes = Uint8Array.from(atob(secret.slice("whsec_".length)), (c) => c.charCodeAt(0));
  const expected = `v1,${toBase64(hmac(sha256, keyBytes, utf8ToBytes(`${headers["webhook-id"]}.${headers["webhook-timestamp"]}.${body}`)))}`;
  return (headers["webhook-signature"] ?? "").split(" ").includes(expected);
}

async function create(env: Env, extra: Record<string, unknown> = {}, opts: { key?: string } = {}) {
  return call<Keyed>(env, env.a.principal, "create_webhook", { ai_account_id: env.recipientId, url: "https://hooks.example.com/in", name: "worker push", ...extra }, opts);
}

async function sendTo(env: Env, template = "note", priority = "normal") {
  const sender = await seedAccount(env.world, env.a.workspace_id);
  const { credential } = await seedTokenCredential(env.world, sender, { scopes: ["send"] });
  const principal: Principal = { ...env.a.principal, account: sender, credential };
  const payload = template === "note" ? { text: "hello" } : { directive_kind: "task", summary: "s", instructions: "i" };
  const res = await sendMessage(env.world.deps, scenarioContext(env.world, principal, { idempotencyKey: key() }), { envelope: { recipient: { friendly_name: "worker" }, template, priority }, payload });
  return res as { status: number; body: { message_id: string } };
}

describe("webhook operations", () => {
  it("are administrative, need manage_webhooks, and every write needs an Idempotency-Key", () => {
    for (const op of WEBHOOK_OPERATIONS) {
      expect(op.auth).toEqual({ kind: "credential", tier: "administrative", scope: "manage_webhooks" });
      expect(op.mutates).toBe(op.http.method !== "GET");
      if (op.mutates) expect(op.idempotency).toBe("required");
    }
  });

  it("create: verifies the URL with a signed probe, returns the secret once, replays byte for byte, audits", async () => {
    const env = await setup();
    const k = key();
    const res = await create(env, { filter: { templates: ["note"] }, max_attempts: 4 }, { key: k });
    expect(res.status).toBe(201);
    expect(res.body.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(res.body.webhook).toMatchObject({ ai_account_id: env.recipientId, url: "https://hooks.example.com/in", name: "worker push", filter: { templates: ["note"], min_priority: null }, max_attempts: 4, state: "active", outbox: { pending: 0, retrying: 0, delivered: 0, dead: 0 }, health: { status: "idle" } });
    expect(res.body.webhook.signing_keys).toEqual([{ id: anyString, state: "current", created_at: anyString, expires_at: null }]);
    expect(env.transport.requests).toHaveLength(1);
    const probe = env.transport.requests[0]!;
    expect(JSON.parse(probe.body)).toMatchObject({ type: "webhook.verification", data: { webhook_id: res.body.webhook.id } });
    expect(signedBy(res.body.signing_secret, probe.headers, probe.body)).toBe(true);
    const replay = await create(env, { filter: { templates: ["note"] }, max_attempts: 4 }, { key: k });
    expect(JSON.stringify(replay)).toBe(JSON.stringify(res));
    expect(env.transport.requests).toHaveLength(1);
    const audit = await env.world.deps.stores.audit.list({ workspaceId: env.a.workspace_id, activity: "webhook.created", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0]?.details)).not.toContain(res.body.signing_secret.slice(6));
    expect(JSON.stringify(env.world.tables.messaging.idempotency.values())).not.toContain(res.body.signing_secret.slice(6));
  });

  it("the probe of create and of a URL change runs outside any transaction (another transaction completes during it)", async () => {
    const env = await setup();
    const probeSawTransaction: string[] = [];
    const inner = env.transport.post.bind(env.transport);
    env.transport.post = async (p) => {
      // The in-memory TxRunner runs one transaction at a time: inside one, this would never finish.
      const other = env.world.deps.tx.run(async () => "completed");
      probeSawTransaction.push(await Promise.race([other, new Promise<string>((r) => setTimeout(() => r("blocked"), 1_000))]));
      return inner(p);
    };
    const { body } = await create(env);
    await call(env, env.a.principal, "update_webhook", { webhook_id: body.webhook.id, url: "https://moved.example.com/" });
    expect(probeSawTransaction).toEqual(["completed", "completed"]);
  });

  it("create: a failed probe is 400 with details.verification_failure_reason and stores nothing", async () => {
    const env = await setup();
    env.transport.next = [{ kind: "failed", reason: "destination_not_public" }];
    expect(await codeOf(create(env))).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { verification_failure_reason: "destination_not_public" } });
    env.transport.next = [{ kind: "response", status: 302 }];
    expect(await codeOf(create(env))).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { verification_failure_reason: "unexpected_status", status: 302 } });
    env.transport.next = [{ kind: "failed", reason: "timeout" }];
    expect(await codeOf(create(env))).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { verification_failure_reason: "timeout" } });
    expect((await call<{ items: unknown[] }>(env, env.a.principal, "list_webhooks")).body.items).toHaveLength(0);
  });

  it("create: refuses bad fields, unknown or foreign accounts, and callers without the scope or tier", async () => {
    const env = await setup();
    expect((await codeOf(create(env, { url: "ftp://x.example.com/" }))).code).toBe("SVC_MALFORMED_REQUEST");
    expect((await codeOf(create(env, { url: "https://user:pw@x.example.com/" }))).code).toBe("SVC_MALFORMED_REQUEST");
    expect((await codeOf(create(env, { max_attempts: 7 }))).code).toBe("SVC_MALFORMED_REQUEST");
    expect((await codeOf(create(env, { filter: { min_priority: "huge" } }))).code).toBe("SVC_MALFORMED_REQUEST");
    expect((await codeOf(create(env, { filter: { templates: [] } }))).code).toBe("SVC_MALFORMED_REQUEST");
    expect((await codeOf(create(env, { ai_account_id: env.b.ai_account_id }))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await codeOf(call(env, env.a.principal, "create_webhook", { ai_account_id: env.recipientId, url: "https://h.example.com/", name: "n" }, { key: null }))).code).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    const { credential } = await seedTokenCredential(env.world, env.a.principal.account, { tier: "administrative", scopes: ["manage_credentials"] });
    expect((await codeOf(call(env, { ...env.a.principal, credential }, "list_webhooks"))).code).toBe("SVC_SCOPE_INSUFFICIENT");
    const { credential: op } = await seedTokenCredential(env.world, env.a.principal.account, { tier: "operational", scopes: ["send"] });
    expect((await codeOf(call(env, { ...env.a.principal, credential: op }, "list_webhooks"))).code).toBe("SVC_TIER_INSUFFICIENT");
    expect(env.transport.requests).toHaveLength(0);
  });

  it("an AI account has at most 10 live webhooks; deleting one frees its place", async () => {
    const env = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await create(env, { name: `hook ${i}` })).body.webhook.id);
    expect(await codeOf(create(env))).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { limit: 10 } });
    await call(env, env.a.principal, "delete_webhook", { webhook_id: ids[0] });
    expect((await create(env)).status).toBe(201);
  });

  it("get, list and update; a new URL is verified again; another workspace gets 404", async () => {
    const env = await setup();
    const { body } = await create(env);
    const id = body.webhook.id;
    expect((await call<WebhookView>(env, env.a.principal, "get_webhook", { webhook_id: id })).body).toEqual(body.webhook);
    expect((await codeOf(call(env, env.b.principal, "get_webhook", { webhook_id: id }))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    const renamed = await call<WebhookView>(env, env.a.principal, "update_webhook", { webhook_id: id, name: "renamed", filter: { min_priority: "high" }, max_attempts: 2 });
    expect(renamed.body).toMatchObject({ name: "renamed", filter: { templates: null, min_priority: "high" }, max_attempts: 2, url: body.webhook.url });
    expect(env.transport.requests).toHaveLength(1);
    env.transport.next = [{ kind: "response", status: 500 }];
    expect(await codeOf(call(env, env.a.principal, "update_webhook", { webhook_id: id, url: "https://other.example.com/" }))).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { verification_failure_reason: "unexpected_status" } });
    const moved = await call<WebhookView>(env, env.a.principal, "update_webhook", { webhook_id: id, url: "https://other.example.com/" });
    expect(moved.body.url).toBe("https://other.example.com/");
    expect(env.transport.requests.map((r) => r.url)).toEqual(["https://hooks.example.com/in", "https://other.example.com/", "https://other.example.com/"]);
    expect((await codeOf(call(env, env.a.principal, "update_webhook", { webhook_id: id })))).toMatchObject({ code: "SVC_MALFORMED_REQUEST" });
    const list = await call<{ items: WebhookView[]; next_cursor: string | null }>(env, env.a.principal, "list_webhooks", { limit: 10 });
    expect(list.body.items.map((w) => w.id)).toEqual([id]);
    expect((await call<{ items: WebhookView[] }>(env, env.b.principal, "list_webhooks")).body.items).toHaveLength(0);
    const activities = (await env.world.deps.stores.audit.list({ workspaceId: env.a.workspace_id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 100 })).map((r) => r.activity);
    expect(activities.filter((a) => a === "webhook.updated")).toHaveLength(2);
  });

  it("rotate: a new secret each time; the previous keys keep signing in their overlap (all signatures sent), then drop out", async () => {
    const env = await setup();
    const created = await create(env);
    const id = created.body.webhook.id;
    const results = await Promise.allSettled([1, 2, 3].map(() => call<Keyed>(env, env.a.principal, "rotate_webhook_signing_key", { webhook_id: id, overlap_window: "PT1H" })));
    // The in-memory TxRunner serializes transactions, so each rotation sees the previous one: all win here.
    // The compare-and-set itself is covered by the store contract (many concurrent rotations, one winner).
    expect(results.every((r) => r.status === "fulfilled")).toBe(true);
    const rotated = (results[0] as PromiseFulfilledResult<{ body: Keyed }>).value.body;
    expect(rotated.signing_secret).not.toBe(created.body.signing_secret);
    const view = (await call<WebhookView>(env, env.a.principal, "get_webhook", { webhook_id: id })).body;
    expect(view.signing_keys.map((k) => k.state)).toEqual(["current", "previous", "previous", "previous"]);
    expect((await codeOf(call(env, env.a.principal, "rotate_webhook_signing_key", { webhook_id: id, overlap_window: "P8D" }))).code).toBe("SVC_MALFORMED_REQUEST");

    await sendTo(env);
    const transport = env.transport;
    await dispatchDueDeliveries(env.world.deps, { transport, batchSize: 10, leaseMs: 60_000, timeoutMs: 1000, retry: { baseMs: 1, factor: 2, maxMs: 10 }, random: () => 0.5 });
    const delivery = transport.requests.at(-1)!;
    expect(delivery.headers["webhook-signature"]?.split(" ")).toHaveLength(4);
    expect(signedBy(created.body.signing_secret, delivery.headers, delivery.body)).toBe(true);
    const latest = (results[2] as PromiseFulfilledResult<{ body: Keyed }>).value.body.signing_secret;
    expect(signedBy(latest, delivery.headers, delivery.body)).toBe(true);

    env.world.clock.advance(3_600_001);
    await sendTo(env);
    await dispatchDueDeliveries(env.world.deps, { transport, batchSize: 10, leaseMs: 60_000, timeoutMs: 1000, retry: { baseMs: 1, factor: 2, maxMs: 10 }, random: () => 0.5 });
    const after = transport.requests.at(-1)!;
    expect(after.headers["webhook-signature"]?.split(" ")).toHaveLength(1);
    expect(signedBy(latest, after.headers, after.body)).toBe(true);
    expect(signedBy(created.body.signing_secret, after.headers, after.body)).toBe(false);
    expect((await call<WebhookView>(env, env.a.principal, "get_webhook", { webhook_id: id })).body.signing_keys.map((k) => k.state)).toEqual(["current"]);
  });

  it("the filter is honoured by the send; deliveries are listed and retried to dead with the alert audit row", async () => {
    const env = await setup();
    const { body } = await create(env, { filter: { templates: ["note"], min_priority: "normal" }, max_attempts: 3 });
    const id = body.webhook.id;
    await sendTo(env, "directive");
    await sendTo(env, "note", "low");
    const sent = await sendTo(env, "note", "high");
    let deliveries = (await call<{ items: DeliveryView[] }>(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id })).body.items;
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ state: "pending", attempts: 0, event_type: "message.sent", message_id: sent.body.message_id });
    const settings = { transport: env.transport, batchSize: 10, leaseMs: 60_000, timeoutMs: 1000, retry: { baseMs: 1000, factor: 2, maxMs: 60_000 }, random: () => 0 };
    env.transport.requests.length = 0;
    env.transport.next = [{ kind: "response", status: 500 }, { kind: "failed", reason: "connection_failed" }, { kind: "response", status: 301 }];
    let pass = await dispatchDueDeliveries(env.world.deps, settings);
    expect(pass).toMatchObject({ claimed: 1, failed: 1 });
    expect((await dispatchDueDeliveries(env.world.deps, settings)).claimed).toBe(0);
    env.world.clock.advance(500);
    pass = await dispatchDueDeliveries(env.world.deps, settings);
    expect(pass.claimed).toBe(1);
    env.world.clock.advance(1000);
    pass = await dispatchDueDeliveries(env.world.deps, settings);
    expect(pass.exhausted).toHaveLength(1);
    expect(env.transport.requests).toHaveLength(3);
    expect(new Set(env.transport.requests.map((r) => r.headers["webhook-id"])).size).toBe(1);
    expect(new Set(env.transport.requests.map((r) => r.body)).size).toBe(1);
    deliveries = (await call<{ items: DeliveryView[] }>(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id, state: "dead" })).body.items;
    expect(deliveries[0]).toMatchObject({ state: "dead", attempts: 3, last_status: 301, last_error: "status_301", next_attempt_at: null });
    const view = (await call<WebhookView>(env, env.a.principal, "get_webhook", { webhook_id: id })).body;
    expect(view.outbox).toEqual({ pending: 0, retrying: 0, delivered: 0, dead: 1 });
    expect(view.health).toMatchObject({ status: "failing", last_failure_reason: "status_301" });
    expect(view.recent_dead_deliveries.map((d) => d.id)).toEqual([deliveries[0]!.id]);
    const alerts = await env.world.deps.stores.audit.list({ workspaceId: env.a.workspace_id, activity: "webhook.delivery_exhausted", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ subjectType: "webhook", subjectId: id, messageId: sent.body.message_id, details: { delivery_id: deliveries[0]!.id, attempts: 3 } });
    expect((await codeOf(call(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id, state: "lost" }))).code).toBe("SVC_MALFORMED_REQUEST");
  });

  it("delete: soft-deletes, purges the pending outbox, later sends write none; a second delete is 404", async () => {
    const env = await setup();
    const { body } = await create(env);
    const id = body.webhook.id;
    await sendTo(env);
    await sendTo(env);
    const deleted = await call<{ id: string; state: string; purged_deliveries: number }>(env, env.a.principal, "delete_webhook", { webhook_id: id });
    expect(deleted.body).toMatchObject({ id, state: "deleted", purged_deliveries: 2 });
    await sendTo(env);
    expect(env.world.tables.webhooks.outbox.values()).toHaveLength(0);
    expect((await codeOf(call(env, env.a.principal, "delete_webhook", { webhook_id: id }))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await codeOf(call(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id }))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await env.world.deps.stores.audit.list({ workspaceId: env.a.workspace_id, activity: "webhook.deleted", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 }))[0]?.details).toMatchObject({ purged_deliveries: 2 });
  });

  it("another workspace gets 404 on every route of a webhook and sees none in its list", async () => {
    const env = await setup();
    const id = (await create(env)).body.webhook.id;
    for (const [name, input] of [
      ["get_webhook", {}],
      ["update_webhook", { name: "x" }],
      ["list_webhook_deliveries", {}],
      ["rotate_webhook_signing_key", {}],
      ["delete_webhook", {}],
    ] as const) {
      expect({ name, ...(await codeOf(call(env, env.b.principal, name, { webhook_id: id, ...input }))) }).toMatchObject({ name, code: "SVC_RESOURCE_NOT_FOUND" });
    }
    expect((await codeOf(call(env, env.a.principal, "get_webhook", { webhook_id: "not-a-ulid" }))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await call<WebhookView>(env, env.a.principal, "get_webhook", { webhook_id: id })).body.signing_keys).toHaveLength(1);
  });

  it("a replayed rotation returns the same secret byte for byte and rotates once", async () => {
    const env = await setup();
    const id = (await create(env)).body.webhook.id;
    const k = key();
    const first = await call<Keyed>(env, env.a.principal, "rotate_webhook_signing_key", { webhook_id: id }, { key: k });
    const again = await call<Keyed>(env, env.a.principal, "rotate_webhook_signing_key", { webhook_id: id }, { key: k });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect((await call<WebhookView>(env, env.a.principal, "get_webhook", { webhook_id: id })).body.signing_keys).toHaveLength(2);
    expect((await codeOf(call(env, env.a.principal, "rotate_webhook_signing_key", { webhook_id: id, overlap_window: "PT5M" }, { key: k }))).code).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("deliveries page with a cursor bound to the state filter", async () => {
    const env = await setup();
    const id = (await create(env)).body.webhook.id;
    for (let i = 0; i < 3; i++) await sendTo(env);
    const first = await call<{ items: DeliveryView[]; next_cursor: string | null }>(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id, limit: 2 });
    expect(first.body.items).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call<{ items: DeliveryView[]; next_cursor: string | null }>(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id, limit: 2, cursor: first.body.next_cursor });
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    expect(new Set([...first.body.items, ...second.body.items].map((d) => d.id)).size).toBe(3);
    expect((await codeOf(call(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id, limit: 2, state: "pending", cursor: first.body.next_cursor }))).code).toBe("SVC_CURSOR_EXPIRED");
    expect((await codeOf(call(env, env.a.principal, "list_webhook_deliveries", { webhook_id: id, limit: "two" }))).code).toBe("SVC_MALFORMED_REQUEST");
  });

  it("derives the same key from the same seal and a different one under another pepper", () => {
    const a = signingKeyFromSeal(new Uint8Array(32).fill(1), "seal");
    expect(signingKeyFromSeal(new Uint8Array(32).fill(1), "seal")).toEqual(a);
    expect(signingKeyFromSeal(new Uint8Array(32).fill(2), "seal")).not.toEqual(a);
    expect(a).toHaveLength(32);
  });
});
