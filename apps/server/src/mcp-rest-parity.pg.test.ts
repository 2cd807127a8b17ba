import { ERROR_CATALOGUE, ERROR_CODES, OPERATIONAL_SCOPES, bootstrapWorkspace, listSanctionsScreen, type ErrorCode } from "@agentq/core";
import { ManualClock, TEST_SECRETS } from "@agentq/core/testing";
import { RETRY_AFTER_META_KEY } from "@agentq/mcp";
import { connectMcpClient, errorCodeOf, serveOnFreePort, structured, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";

// Issue 5: every SVC_ code a tool can return is checked through MCP against the REST code for
// the same failure. Each scenario sets up a state on the composed server over PostgreSQL (REST
// and MCP on one real HTTP server), performs the failure through REST (code and status of the
// error envelope), then the same failure through the MCP SDK Client over Streamable HTTP, and
// requires the same code (and the same details, except where the tool reports paths in its own
// argument shape). Tests assert codes, never message text.

type McpClient = Awaited<ReturnType<typeof connectMcpClient>>;

/** One REST request: the bearer token, method, path and JSON body (a fresh Idempotency-Key unless one is given). */
interface RestCall {
  token: string;
  method: "GET" | "POST" | "PATCH" | "DELETE";
  path: string;
  body?: unknown;
  idempotencyKey?: string;
}

/** The MCP tool call standing for the same request. */
interface ToolCall {
  token: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** A failure, arranged: the REST request and the tool call that must both fail with `code`; `url` when not the main server. */
interface ArrangedFailure {
  rest: RestCall;
  tool: ToolCall;
  url?: string;
}

interface Scenario {
  name: string;
  code: ErrorCode;
  arrange(): Promise<ArrangedFailure>;
}

/**
 * Codes no tool result can carry, each with the reason. Object keys (not string literals), so
 * the catalogue-coverage test (error-coverage.test.ts) does not count them as asserted here.
 */
const NOT_FROM_A_TOOL = {
  SVC_STEP_UP_REQUIRED: "the step-up rule guards people's routes (sessions); /mcp takes only bearer credentials",
  SVC_GEOFENCE_BLOCKED: "sign-up is a human route (POST /v1/auth/sign-up), not a tool",
  SVC_CSRF_REJECTED: "an HTTP-level refusal of a /mcp request with a foreign Origin before any tool runs (create-mcp-app.test.ts asserts it); on REST, cookie writes",
  SVC_IDEMPOTENCY_KEY_REQUIRED: "a tool call without idempotency_key runs under a fresh server-side key, by design",
  SVC_UNSUPPORTED_CONTENT_TYPE: "an HTTP-level refusal of the /mcp request before any tool runs; the SDK client always sends uncompressed application/json",
  SVC_PAYLOAD_TOO_LARGE: "an HTTP-level refusal of the /mcp request body (256 KB) before any tool runs; create-mcp-app.test.ts asserts it",
  SVC_ROUTE_NOT_FOUND: "REST routing: an unknown tool is a JSON-RPC protocol error, not a tool result",
  SVC_METHOD_NOT_ALLOWED: "REST routing (and methods other than GET, POST and DELETE on /mcp itself): a tool is always called by POST",
} as const satisfies Partial<Record<ErrorCode, string>>;

/** Codes that the /mcp endpoint returns as an HTTP refusal of the request carrying the tool call (not as an isError result). */
const HTTP_LEVEL: readonly ErrorCode[] = ["SVC_UNAUTHENTICATED"];

const DIRECTIVE = { directive_kind: "task", summary: "do it", instructions: "carefully" };
const UNKNOWN_ID = "01JZZZZZZZZZZZZZZZZZZZZZZZ";

describe("MCP and REST report the same SVC_ code for the same failure (PostgreSQL, real HTTP, SDK client)", () => {
  let db: TestSchema;
  // Frozen at the real time: rate-limit windows and limit caches do not roll during the run;
  // leases are decided by the database clock, which keeps moving.
  const clock = new ManualClock(new Date());
  let service: ComposedService;
  let served: ServedApp;
  let down: { service: ComposedService; served: ServedApp; sql: postgres.Sql };
  const clients = new Map<string, Promise<McpClient>>();

  let admin: string;
  let sender: { token: string; name: string };
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${++counter}`;

  const restAt = async (url: string, call: RestCall) => {
    const withBody = call.body !== undefined;
    const res = await fetch(`${url}${call.path}`, {
      method: call.method,
      headers: {
        Authorization: `Bearer ${call.token}`,
        ...(withBody ? { "Content-Type": "application/json", "Idempotency-Key": call.idempotencyKey ?? unique("key") } : {}),
      },
      ...(withBody ? { body: JSON.stringify(call.body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  const rest = (call: RestCall) => restAt(served.url, call);
  const ok = async (call: RestCall) => {
    const r = await rest(call);
    expect(r.status, `${call.method} ${call.path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body;
  };

  const clientFor = (url: string, token: string): Promise<McpClient> => {
    const key = `${url} ${token}`;
    let c = clients.get(key);
    if (c === undefined) {
      c = connectMcpClient(url, `Bearer ${token}`);
      clients.set(key, c);
    }
    return c;
  };

  /** The tool call as raw JSON-RPC over HTTP, for refusals of the HTTP request itself. */
  const rawToolCall = async (url: string, call: ToolCall) => {
    const res = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${call.token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: call.name, arguments: call.arguments } }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };

  const newAccount = async (name: string, scopes: readonly string[]) => {
    const account = await ok({ token: admin, method: "POST", path: "/v1/ai-accounts", body: { friendly_name: name } });
    const cred = await ok({ token: admin, method: "POST", path: "/v1/credentials", body: { ai_account_id: account.id, tier: "operational", scopes, name: `${name}-laptop` } });
    return { id: account.id as string, name, token: cred.token as string, credentialId: (cred.credential as { id: string }).id };
  };

  const sendBody = (recipient: string, envelope: Record<string, unknown> = {}) => ({ envelope: { recipient: { friendly_name: recipient }, template: "directive", ...envelope }, payload: DIRECTIVE });
  const sendArgs = (recipient: string, envelope: Record<string, unknown> = {}) => ({ recipient: { friendly_name: recipient }, template: "directive", ...envelope, payload: DIRECTIVE });

  /** A message sent to a fresh recipient and claimed by it (so no other scenario's message is in the way). */
  const heldMessage = async (envelope: Record<string, unknown> = {}) => {
    const worker = await newAccount(unique("worker"), OPERATIONAL_SCOPES);
    const sent = await ok({ token: sender.token, method: "POST", path: "/v1/messages/send", body: sendBody(worker.name, envelope) });
    const claimed = await ok({ token: worker.token, method: "POST", path: "/v1/messages/get-pending", body: { max: 1 } });
    const item = (claimed.items as { envelope: { message_id: string }; lease: { lease_id: string } }[])[0];
    expect(item?.envelope.message_id).toBe(sent.message_id);
    return { worker: worker.token, messageId: sent.message_id as string, leaseId: item!.lease.lease_id };
  };

  /** The same lease write through REST and as a tool. */
  const leaseWrite = (token: string, op: "ack" | "nack" | "extend_lease", messageId: string, body: Record<string, unknown>): ArrangedFailure => ({
    rest: { token, method: "POST", path: `/v1/messages/${messageId}/${op}`, body },
    tool: { token, name: op, arguments: { message_id: messageId, ...body } },
  });

  /** A bootstrapped workspace of its own (guard rails that would affect every scenario of the main one). */
  const otherWorkspace = async (name: string, plan?: { plan: "free" | "standard" | "enterprise"; overrides: Record<string, number> }) => {
    const boot = await bootstrapWorkspace(service.deps, { workspaceName: name, email: `owner@${name}.test` });
    if (plan !== undefined) await service.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId: boot.workspace_id, ...plan }, now: clock.now() });
    return { token: boot.token, workspaceId: boot.workspace_id };
  };

  let gated: Promise<{ admin: string; sender: string; policyId: string }> | undefined;
  /** A workspace with a required policy its sender never acknowledged. */
  const gatedWorkspace = () =>
    (gated ??= (async () => {
      const ws = await otherWorkspace("gated");
      const asAdmin = (call: Omit<RestCall, "token">) => ok({ ...call, token: ws.token });
      const account = await asAdmin({ method: "POST", path: "/v1/ai-accounts", body: { friendly_name: "gated-sender" } });
      await asAdmin({ method: "POST", path: "/v1/ai-accounts", body: { friendly_name: "gated-recipient" } });
      const cred = await asAdmin({ method: "POST", path: "/v1/credentials", body: { ai_account_id: account.id, tier: "operational", scopes: ["send", "get_policies", "acknowledge_policies"], name: "gated" } });
      const policy = await asAdmin({ method: "POST", path: "/v1/policies", body: { name: "acceptable-use", body: "Be kind to other agents.", required: true } });
      return { admin: ws.token, sender: cred.token as string, policyId: policy.id as string };
    })());

  const SCENARIOS: Scenario[] = [
    {
      name: "send with an argument of the wrong type (input schema)",
      code: "SVC_MALFORMED_REQUEST",
      arrange: async () => ({
        rest: { token: sender.token, method: "POST", path: "/v1/messages/send", body: sendBody("receiver", { template: 7 }) },
        tool: { token: sender.token, name: "send", arguments: sendArgs("receiver", { template: 7 }) },
      }),
    },
    {
      name: "nack whose redelivery would fall after the message's expiry (decided by the core)",
      code: "SVC_MALFORMED_REQUEST",
      arrange: async () => {
        const m = await heldMessage({ ttl: "PT5M" });
        return leaseWrite(m.worker, "nack", m.messageId, { lease_id: m.leaseId, redeliver_after: "PT10M" });
      },
    },
    {
      name: "a credential without the operation's scope",
      code: "SVC_SCOPE_INSUFFICIENT",
      arrange: async () => {
        const narrow = await newAccount(unique("narrow"), ["get_pending"]);
        return {
          rest: { token: narrow.token, method: "POST", path: "/v1/messages/send", body: sendBody("receiver") },
          tool: { token: narrow.token, name: "send", arguments: sendArgs("receiver") },
        };
      },
    },
    {
      name: "an operational credential calling an administrative operation",
      code: "SVC_TIER_INSUFFICIENT",
      arrange: async () => ({
        rest: { token: sender.token, method: "GET", path: "/v1/ai-accounts" },
        tool: { token: sender.token, name: "list_ai_accounts", arguments: {} },
      }),
    },
    {
      name: "a frozen AI account",
      code: "SVC_FROZEN",
      arrange: async () => {
        const frozen = await newAccount(unique("frozen"), OPERATIONAL_SCOPES);
        await ok({ token: admin, method: "POST", path: `/v1/ai-accounts/${frozen.id}/freeze`, body: {} });
        return { rest: { token: frozen.token, method: "GET", path: "/v1/me" }, tool: { token: frozen.token, name: "get_me", arguments: {} } };
      },
    },
    {
      name: "a closed workspace",
      code: "SVC_WORKSPACE_CLOSED",
      arrange: async () => {
        const ws = await otherWorkspace("closing");
        await service.deps.stores.workspaces.setState({ workspaceId: ws.workspaceId, state: "closed" });
        return { rest: { token: ws.token, method: "GET", path: "/v1/workspaces/me" }, tool: { token: ws.token, name: "get_workspace", arguments: {} } };
      },
    },
    {
      name: "an AI account that does not exist",
      code: "SVC_RESOURCE_NOT_FOUND",
      arrange: async () => ({
        rest: { token: admin, method: "GET", path: `/v1/ai-accounts/${UNKNOWN_ID}` },
        tool: { token: admin, name: "get_ai_account", arguments: { ai_account_id: UNKNOWN_ID } },
      }),
    },
    {
      name: "ack of a message that does not exist",
      code: "SVC_RESOURCE_NOT_FOUND",
      arrange: async () => leaseWrite(sender.token, "ack", UNKNOWN_ID, { lease_id: "no-lease" }),
    },
    {
      name: "send to a friendly name nobody has",
      code: "SVC_RECIPIENT_RESOLUTION_FAILED",
      arrange: async () => ({
        rest: { token: sender.token, method: "POST", path: "/v1/messages/send", body: sendBody("nobody-here") },
        tool: { token: sender.token, name: "send", arguments: sendArgs("nobody-here") },
      }),
    },
    {
      name: "ack with a lease that is not the message's lease",
      code: "SVC_LEASE_NOT_HELD",
      arrange: async () => {
        const m = await heldMessage();
        return leaseWrite(m.worker, "ack", m.messageId, { lease_id: "not-the-lease" });
      },
    },
    {
      name: "ack after the lease ran out",
      code: "SVC_LEASE_EXPIRED",
      arrange: async () => {
        const m = await heldMessage();
        await db.sql`update messages set visible_at = now() - interval '1 second' where id = ${m.messageId}`;
        return leaseWrite(m.worker, "ack", m.messageId, { lease_id: m.leaseId });
      },
    },
    {
      name: "a second nack of the message within 30 s",
      code: "SVC_NACK_RATE_LIMITED",
      arrange: async () => {
        const m = await heldMessage();
        await ok({ token: m.worker, method: "POST", path: `/v1/messages/${m.messageId}/nack`, body: { lease_id: m.leaseId } });
        const again = await ok({ token: m.worker, method: "POST", path: "/v1/messages/get-pending", body: { max: 1 } });
        const lease = (again.items as { lease: { lease_id: string } }[])[0]!.lease.lease_id;
        return leaseWrite(m.worker, "nack", m.messageId, { lease_id: lease });
      },
    },
    {
      name: "a second extend_lease within 10 s",
      code: "SVC_EXTEND_RATE_LIMITED",
      arrange: async () => {
        const m = await heldMessage();
        await ok({ token: m.worker, method: "POST", path: `/v1/messages/${m.messageId}/extend_lease`, body: { lease_id: m.leaseId, visibility_timeout: "PT300S" } });
        return leaseWrite(m.worker, "extend_lease", m.messageId, { lease_id: m.leaseId, visibility_timeout: "PT600S" });
      },
    },
    {
      name: "extend_lease after 30 extensions",
      code: "SVC_LEASE_EXTENSION_LIMIT_EXCEEDED",
      arrange: async () => {
        const m = await heldMessage();
        await db.sql`update messages set lease_extensions = 30 where id = ${m.messageId}`;
        return leaseWrite(m.worker, "extend_lease", m.messageId, { lease_id: m.leaseId, visibility_timeout: "PT600S" });
      },
    },
    {
      name: "extend_lease past the message's own expiry",
      code: "SVC_LEASE_AT_TTL_CEILING",
      arrange: async () => {
        const m = await heldMessage({ ttl: "PT5M" });
        return leaseWrite(m.worker, "extend_lease", m.messageId, { lease_id: m.leaseId, visibility_timeout: "PT600S" });
      },
    },
    {
      name: "extend_lease of a lease already at claim time + 1 h",
      code: "SVC_LEASE_AT_CUMULATIVE_CEILING",
      arrange: async () => {
        const m = await heldMessage();
        // Claimed 59 minutes ago and extended up to the one-hour cap.
        await db.sql`update messages set lease_claimed_at = now() - interval '59 minutes', visible_at = now() + interval '1 minute' where id = ${m.messageId}`;
        return leaseWrite(m.worker, "extend_lease", m.messageId, { lease_id: m.leaseId, visibility_timeout: "PT600S" });
      },
    },
    {
      name: "an Idempotency-Key reused with another send",
      code: "SVC_IDEMPOTENCY_CONFLICT",
      arrange: async () => {
        const key = unique("reused-key");
        await ok({ token: sender.token, method: "POST", path: "/v1/messages/send", body: sendBody("receiver"), idempotencyKey: key });
        return {
          rest: { token: sender.token, method: "POST", path: "/v1/messages/send", body: sendBody("receiver", { priority: "urgent" }), idempotencyKey: key },
          tool: { token: sender.token, name: "send", arguments: { ...sendArgs("receiver", { priority: "urgent" }), idempotency_key: key } },
        };
      },
    },
    {
      name: "create an AI account with a friendly name already taken",
      code: "SVC_RESOURCE_CONFLICT",
      arrange: async () => ({
        rest: { token: admin, method: "POST", path: "/v1/ai-accounts", body: { friendly_name: "receiver" } },
        tool: { token: admin, name: "create_ai_account", arguments: { friendly_name: "receiver" } },
      }),
    },
    {
      name: "ack of a message dead-lettered since it was claimed",
      code: "SVC_DEAD_LETTERED",
      arrange: async () => {
        const m = await heldMessage();
        // What a claim does once the message ran out of deliveries.
        await db.sql`update messages set state = 'dead_lettered', dead_lettered_at = now(), lease_id = null, lease_claimed_at = null where id = ${m.messageId}`;
        return leaseWrite(m.worker, "ack", m.messageId, { lease_id: m.leaseId });
      },
    },
    {
      name: "ack of a message withheld after a legal notice",
      code: "SVC_LEGALLY_WITHHELD",
      arrange: async () => {
        const m = await heldMessage();
        // What an operator's decision on a notice does (DESIGN §2b).
        await db.sql`update messages set withheld_from_state = state, state = 'withheld' where id = ${m.messageId}`;
        return leaseWrite(m.worker, "ack", m.messageId, { lease_id: m.leaseId });
      },
    },
    {
      name: "ack of a message past its expiry",
      code: "SVC_EXPIRED",
      arrange: async () => {
        const m = await heldMessage();
        await db.sql`update messages set expires_at = now() - interval '1 second' where id = ${m.messageId}`;
        return leaseWrite(m.worker, "ack", m.messageId, { lease_id: m.leaseId });
      },
    },
    {
      name: "send before acknowledging a required policy",
      code: "SVC_POLICY_NOT_ACKNOWLEDGED",
      arrange: async () => {
        const g = await gatedWorkspace();
        return {
          rest: { token: g.sender, method: "POST", path: "/v1/messages/send", body: sendBody("gated-recipient") },
          tool: { token: g.sender, name: "send", arguments: sendArgs("gated-recipient") },
        };
      },
    },
    {
      name: "acknowledge a policy version that is no longer current",
      code: "SVC_POLICY_VERSION_STALE",
      arrange: async () => {
        const g = await gatedWorkspace();
        const v2 = await ok({ token: g.admin, method: "POST", path: "/v1/policies", body: { name: "acceptable-use", body: "Be kinder.", required: true } });
        expect(v2).toMatchObject({ id: g.policyId, version: 2 });
        return {
          rest: { token: g.sender, method: "POST", path: `/v1/policies/${g.policyId}/acknowledge`, body: { version: 1 } },
          tool: { token: g.sender, name: "acknowledge_policies", arguments: { policy_id: g.policyId, version: 1 } },
        };
      },
    },
    {
      name: "send to a sanctions-blocked recipient",
      code: "SVC_SANCTIONS_BLOCKED",
      arrange: async () => ({
        rest: { token: sender.token, method: "POST", path: "/v1/messages/send", body: sendBody("embargoed") },
        tool: { token: sender.token, name: "send", arguments: sendArgs("embargoed") },
      }),
    },
    {
      name: "send to a recipient held for sanctions review",
      code: "SVC_SANCTIONS_REVIEW_PENDING",
      arrange: async () => ({
        rest: { token: sender.token, method: "POST", path: "/v1/messages/send", body: sendBody("under-review") },
        tool: { token: sender.token, name: "send", arguments: sendArgs("under-review") },
      }),
    },
    {
      name: "create an AI account past the plan's cap",
      code: "SVC_PLAN_LIMIT_EXCEEDED",
      arrange: async () => {
        // The bootstrapped admin account is the one the cap allows.
        const ws = await otherWorkspace("capped", { plan: "standard", overrides: { aiAccounts: 1 } });
        return {
          rest: { token: ws.token, method: "POST", path: "/v1/ai-accounts", body: { friendly_name: "one-too-many" } },
          tool: { token: ws.token, name: "create_ai_account", arguments: { friendly_name: "one-too-many" } },
        };
      },
    },
    {
      name: "a cursor of another list",
      code: "SVC_CURSOR_EXPIRED",
      arrange: async () => {
        await newAccount(unique("extra"), ["get_pending"]);
        const page = await ok({ token: admin, method: "GET", path: "/v1/ai-accounts?limit=1" });
        const cursor = page.next_cursor as string;
        expect(typeof cursor).toBe("string");
        return {
          rest: { token: admin, method: "GET", path: `/v1/credentials?cursor=${encodeURIComponent(cursor)}` },
          tool: { token: admin, name: "list_credentials", arguments: { cursor } },
        };
      },
    },
    {
      name: "rotate a credential carrying a retired scope",
      code: "SVC_SCOPE_NOT_ISSUABLE",
      arrange: async () => {
        const old = await newAccount(unique("legacy"), ["get_pending"]);
        // Issued before manage_dlq was retired.
        await db.sql`update credentials set scopes = array_append(scopes, 'manage_dlq') where id = ${old.credentialId}`;
        return {
          rest: { token: admin, method: "POST", path: `/v1/credentials/${old.credentialId}/rotate`, body: { overlap_window: "PT60S" } },
          tool: { token: admin, name: "rotate_credential", arguments: { credential_id: old.credentialId, overlap_window: "PT60S" } },
        };
      },
    },
    {
      name: "a credential whose per-minute bucket is empty",
      code: "SVC_RATE_LIMITED",
      arrange: async () => {
        const ws = await otherWorkspace("limited", { plan: "standard", overrides: { credentialRequestsPerMinute: 1 } });
        await ok({ token: ws.token, method: "GET", path: "/v1/me" });
        return { rest: { token: ws.token, method: "GET", path: "/v1/me" }, tool: { token: ws.token, name: "get_me", arguments: {} } };
      },
    },
    {
      name: "the database cannot be reached",
      code: "SVC_SERVICE_UNAVAILABLE",
      arrange: async () => ({
        url: down.served.url,
        rest: { token: sender.token, method: "GET", path: "/v1/me" },
        tool: { token: sender.token, name: "get_me", arguments: {} },
      }),
    },
  ];

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    service = composeService({
      sql: db.sql,
      secrets: TEST_SECRETS,
      publicBaseUrl: "http://agentq.test",
      logger: createLogger("silent"),
      rateLimiter: "memory",
      clock,
      sanctions: listSanctionsScreen([
        { name: "embargoed", status: "blocked" },
        { name: "under-review", status: "review" },
      ]),
    });
    served = await serveOnFreePort((request) => service.fetch(request));
    const boot = await bootstrapWorkspace(service.deps, { workspaceName: "parity", email: "owner@parity.test" });
    // No plan cap or rate limit of the main workspace gets in the way of the scenarios.
    await service.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId: boot.workspace_id, plan: "enterprise", overrides: {} }, now: clock.now() });
    admin = boot.token;
    const s = await newAccount("sender", OPERATIONAL_SCOPES);
    sender = { token: s.token, name: s.name };
    for (const name of ["receiver", "embargoed", "under-review"]) await newAccount(name, ["get_pending"]);

    // The same service over a database nobody answers for (connection refused).
    const deadSql = postgres("postgres://agentq@127.0.0.1:1/agentq", { max: 1, connect_timeout: 2, onnotice: () => undefined });
    const deadService = composeService({ sql: deadSql, secrets: TEST_SECRETS, publicBaseUrl: "http://agentq.test", logger: createLogger("silent"), rateLimiter: "off", clock });
    down = { service: deadService, served: await serveOnFreePort((request) => deadService.fetch(request)), sql: deadSql };
  });

  afterAll(async () => {
    await Promise.all([...clients.values()].map(async (c) => (await c.catch(() => null))?.close()));
    await served?.close();
    await service?.close();
    await down?.served.close();
    await down?.service.close().catch(() => undefined);
    await down?.sql.end({ timeout: 1 });
    await db?.drop();
  });

  it("covers every code of the catalogue: asserted below, or excluded with a reason", () => {
    const asserted = new Set<ErrorCode>([...SCENARIOS.map((s) => s.code), ...HTTP_LEVEL]);
    const excluded = Object.keys(NOT_FROM_A_TOOL) as ErrorCode[];
    expect(excluded.filter((c) => asserted.has(c))).toEqual([]);
    expect(excluded.filter((c) => !(c in ERROR_CATALOGUE))).toEqual([]);
    expect(ERROR_CODES.filter((c) => !asserted.has(c) && !excluded.includes(c))).toEqual([]);
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.code}: ${scenario.name}`, async () => {
      const failure = await scenario.arrange();
      const url = failure.url ?? served.url;

      const viaRest = await restAt(url, failure.rest);
      expect(viaRest.body.error?.code, JSON.stringify(viaRest.body)).toBe(scenario.code);
      expect(viaRest.status).toBe(ERROR_CATALOGUE[scenario.code].status);

      const viaTool = await (await clientFor(url, failure.tool.token)).callTool({ name: failure.tool.name, arguments: failure.tool.arguments });
      expect(viaTool.isError, JSON.stringify(viaTool)).toBe(true);
      expect(errorCodeOf(viaTool)).toBe(viaRest.body.error.code);
      const envelope = structured(viaTool) as { error: { details?: unknown }; request_id: unknown };
      expect(typeof envelope.request_id).toBe("string");
      // The tool reports malformed-argument paths in its own argument shape (send is flattened).
      if (scenario.code !== "SVC_MALFORMED_REQUEST") expect(envelope.error.details).toEqual(viaRest.body.error.details);
      const retryAfter = viaRest.headers.get("Retry-After");
      if (retryAfter !== null) expect(viaTool._meta?.[RETRY_AFTER_META_KEY]).toEqual(expect.any(Number));
    });
  }

  describe("refusals of the HTTP request that carries the tool call", () => {
    const expectRefused = async (code: ErrorCode, failure: ArrangedFailure, client: McpClient) => {
      const viaRest = await rest(failure.rest);
      expect(viaRest.body.error?.code).toBe(code);
      expect(viaRest.status).toBe(ERROR_CATALOGUE[code].status);
      // The SDK client sees the HTTP status; the body is the REST error envelope.
      await expect(client.callTool({ name: failure.tool.name, arguments: failure.tool.arguments })).rejects.toMatchObject({ code: viaRest.status });
      const viaMcp = await rawToolCall(served.url, failure.tool);
      expect(viaMcp.status).toBe(viaRest.status);
      expect(viaMcp.body.error?.code).toBe(viaRest.body.error.code);
      return viaMcp;
    };

    it("SVC_UNAUTHENTICATED: a credential revoked while the client is connected", async () => {
      const soon = await newAccount(unique("revoked"), OPERATIONAL_SCOPES);
      const client = await clientFor(served.url, soon.token);
      await ok({ token: admin, method: "POST", path: `/v1/credentials/${soon.credentialId}/revoke`, body: {} });
      const failure: ArrangedFailure = { rest: { token: soon.token, method: "GET", path: "/v1/me" }, tool: { token: soon.token, name: "get_me", arguments: {} } };
      const viaMcp = await expectRefused("SVC_UNAUTHENTICATED", failure, client);
      expect(viaMcp.headers.get("WWW-Authenticate")).toMatch(/^Bearer resource_metadata=/);
    });
  });
});
