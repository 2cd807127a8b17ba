import { describe, expect, it } from "vitest";
import { createAuthenticator } from "./authenticate.ts";
import type { Authenticator } from "./authenticate.ts";
import type { AiAccountView, CredentialDetailView, CredentialView, WorkspaceView } from "./access-views.ts";
import type { McpClientConfig } from "./mcp-config.ts";
import type { Principal } from "./model.ts";
import { DomainError, isDomainError } from "../errors.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import type { Stores } from "../ports.ts";
import { bootstrapScenarioWorkspace, seedAccount, seedTokenCredential } from "../testing/access-scenario.ts";
import type { AccessScenarioWorkspace } from "../testing/access-scenario.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import type { InMemoryWorld } from "../testing/create-in-memory-deps.ts";
import { InMemoryTxRunner } from "../testing/in-memory-tx-runner.ts";
import { makeProject } from "../testing/session-state-stores.contract.ts";
import { DAY_MS, HOUR_MS } from "../time/duration.ts";
import { ACCESS_OPERATIONS } from "./operations.ts";
import { OPERATIONS } from "../catalogue.ts";
import { executeOperation } from "../execution/execute.ts";

const anyString: unknown = expect.any(String);
const matching = (re: RegExp): unknown => expect.stringMatching(re);
const containing = (o: object): unknown => expect.objectContaining(o);

interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

interface Issued {
  credential: CredentialView;
  token: string;
  mcp_config?: McpClientConfig;
}

interface Env {
  world: InMemoryWorld;
  auth: Authenticator;
  a: AccessScenarioWorkspace;
  b: AccessScenarioWorkspace;
}

async function setup(): Promise<Env> {
  const world = createInMemoryDeps();
  const auth = createAuthenticator(world.deps);
  world.deps.credentialCache = auth;
  world.deps.publicBaseUrl = "https://queue.example.test/";
  const a = await bootstrapScenarioWorkspace(world, "alpha", auth);
  const b = await bootstrapScenarioWorkspace(world, "beta", auth);
  return { world, auth, a, b };
}

/** The id of the project `seedProject` makes. */
const PROJECT_ID = "01JPR0JECT0000000000000000";

/** A project of `workspaceId` (with `id`), for credentials restricted to it. */
async function seedProject(env: Env, workspaceId: string, id = PROJECT_ID): Promise<void> {
  await env.world.deps.stores.projects.insert({ project: makeProject(workspaceId, { id }) });
}

function opNamed(name: string) {
  const op = ACCESS_OPERATIONS.find((o) => o.name === name);
  if (!op) throw new Error(`no operation ${name}`);
  return op;
}

/** Calls an operation the way an edge does: path filled in, fingerprint over method, path and body. */
async function call<T = unknown>(env: Env, caller: Principal | string, name: string, input: Record<string, unknown> = {}, opts: { key?: string } = {}): Promise<{ status: number; body: T }> {
  const principal = typeof caller === "string" ? await env.auth.authenticate(caller) : caller;
  const op = opNamed(name);
  const path = op.http.path.replace(/\{(\w+)\}/g, (_m, p: string) => String(input[p]));
  const body = op.http.method === "GET" ? null : Object.fromEntries(Object.entries(input).filter(([k]) => !op.http.path.includes(`{${k}}`)));
  const ctx = { principal, requestId: `req-${env.world.deps.ids.next()}`, idempotencyKey: opts.key ?? null, fingerprint: requestFingerprint({ method: op.http.method, path, body }) };
  return (await executeOperation(env.world.deps, op, ctx, input)) as { status: number; body: T };
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  return "no error";
}

let keyCounter = 0;
const key = () => `key-${++keyCounter}`;

async function auditActivities(env: Env, workspaceId: string): Promise<string[]> {
  const rows = await env.world.deps.stores.audit.list({ workspaceId, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 1000 });
  return rows.map((r) => r.activity).reverse();
}

async function issue(env: Env, caller: Principal | string, input: Record<string, unknown>, opts: { key?: string } = {}) {
  return call<Issued>(env, caller, "issue_credential", { name: "worker on box-1", ...input }, opts);
}

describe("catalogue", () => {
  it("holds every access operation once; mutations are marked and have an idempotency rule", () => {
    for (const op of ACCESS_OPERATIONS) expect(OPERATIONS.filter((o) => o.name === op.name)).toHaveLength(1);
    const required = ACCESS_OPERATIONS.filter((o) => o.idempotency === "required").map((o) => o.name).sort();
    expect(required).toEqual(["freeze_ai_account", "revoke_ai_account", "revoke_credential", "rotate_credential"]);
    for (const op of ACCESS_OPERATIONS) expect(op.mutates).toBe(op.http.method !== "GET");
    for (const op of ACCESS_OPERATIONS.filter((o) => o.mutates)) expect(op.idempotency).not.toBe("none");
  });
});

describe("AI accounts", () => {
  it("creates an account: 201 {id, friendly_name, state, created_at}, audited", async () => {
    const env = await setup();
    const res = await call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "billing-bot" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: anyString, friendly_name: "billing-bot", state: "active", created_at: env.world.clock.now().toISOString(), last_active_at: null });
    expect(await auditActivities(env, env.a.workspace_id)).toContain("ai_account.created");
  });

  it("replays a create sent again with the same key instead of creating a second account", async () => {
    const env = await setup();
    const k = key();
    const first = await call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "once" }, { key: k });
    const again = await call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "once" }, { key: k });
    expect(again).toEqual(first);
    const all = await call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts");
    expect(all.body.items.filter((a) => a.friendly_name === "once")).toHaveLength(1);
    expect(await codeOf(call(env, env.a.principal, "create_ai_account", { friendly_name: "twice" }, { key: k }))).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("refuses bad names (400), taken names (409), and frees the name of a revoked account", async () => {
    const env = await setup();
    for (const bad of ["", "Upper", "-lead", "a".repeat(64), "has space", "ünï"]) {
      expect(await codeOf(call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: bad }))).toBe("SVC_MALFORMED_REQUEST");
    }
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "admin" }))).toBe("SVC_RESOURCE_CONFLICT");
    const created = await call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "worker" });
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "worker" }))).toBe("SVC_RESOURCE_CONFLICT");
    // Another workspace may use the same name.
    expect((await call<AiAccountView>(env, env.b.principal, "create_ai_account", { friendly_name: "worker" })).status).toBe(201);
    await call<AiAccountView>(env, env.a.principal, "revoke_ai_account", { ai_account_id: created.body.id }, { key: key() });
    expect((await call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "worker" })).status).toBe(201);
  });

  it("needs an administrative credential (403 SVC_TIER_INSUFFICIENT) with manage_ai_accounts for writes (403 SVC_SCOPE_INSUFFICIENT)", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const op = await seedTokenCredential(env.world, account, { tier: "operational", scopes: ["send"] });
    const adminNoScope = await seedTokenCredential(env.world, account, { tier: "administrative", scopes: ["manage_credentials"] });
    expect(await codeOf(call<AiAccountView>(env, op.authorization, "create_ai_account", { friendly_name: "x" }))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await codeOf(call<Page<AiAccountView>>(env, op.authorization, "list_ai_accounts"))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await codeOf(call<AiAccountView>(env, adminNoScope.authorization, "create_ai_account", { friendly_name: "x" }))).toBe("SVC_SCOPE_INSUFFICIENT");
    expect(await codeOf(call<AiAccountView>(env, adminNoScope.authorization, "freeze_ai_account", { ai_account_id: account.id }, { key: key() }))).toBe("SVC_SCOPE_INSUFFICIENT");
    // Reads need the tier only.
    expect((await call<Page<AiAccountView>>(env, adminNoScope.authorization, "list_ai_accounts")).status).toBe(200);
    expect((await call<AiAccountView>(env, adminNoScope.authorization, "get_ai_account", { ai_account_id: account.id })).status).toBe(200);
  });

  it("lists oldest first in signed pages, filters by state, refuses a cursor of another query", async () => {
    const env = await setup();
    const names = ["n1", "n2", "n3", "n4"];
    for (const n of names) await call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: n });
    const first = await call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { limit: "3" });
    expect(first.body.items.map((a) => a.friendly_name)).toEqual(["admin", "n1", "n2"]);
    expect(first.body.next_cursor).toEqual(anyString);
    const second = await call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { limit: 3, cursor: first.body.next_cursor });
    expect(second.body.items.map((a) => a.friendly_name)).toEqual(["n3", "n4"]);
    expect(second.body.next_cursor).toBeNull();
    const n1 = first.body.items[1]!.id;
    await call<AiAccountView>(env, env.a.principal, "freeze_ai_account", { ai_account_id: n1 }, { key: key() });
    const frozen = await call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { state: "frozen" });
    expect(frozen.body).toEqual({ items: [containing({ id: n1, state: "frozen" })], next_cursor: null });
    expect(await codeOf(call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { state: "frozen", cursor: first.body.next_cursor }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(call<Page<AiAccountView>>(env, env.b.principal, "list_ai_accounts", { cursor: first.body.next_cursor }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { cursor: `${first.body.next_cursor}x` }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { limit: "ten" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { state: "gone" }))).toBe("SVC_MALFORMED_REQUEST");
    env.world.clock.advance(DAY_MS + 1);
    expect(await codeOf(call<Page<AiAccountView>>(env, env.a.principal, "list_ai_accounts", { limit: 3, cursor: first.body.next_cursor }))).toBe("SVC_CURSOR_EXPIRED");
  });

  it("renames, audited; refuses taken names (409), revoked accounts (409), missing ones (404)", async () => {
    const env = await setup();
    const x = (await call<AiAccountView>(env, env.a.principal, "create_ai_account", { friendly_name: "x" })).body;
    const renamed = await call<AiAccountView>(env, env.a.principal, "rename_ai_account", { ai_account_id: x.id, friendly_name: "x2" });
    expect(renamed.body).toEqual({ ...x, friendly_name: "x2" });
    expect(await auditActivities(env, env.a.workspace_id)).toContain("ai_account.renamed");
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "rename_ai_account", { ai_account_id: x.id, friendly_name: "admin" }))).toBe("SVC_RESOURCE_CONFLICT");
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "rename_ai_account", { ai_account_id: x.id, friendly_name: "Bad" }))).toBe("SVC_MALFORMED_REQUEST");
    await call<AiAccountView>(env, env.a.principal, "revoke_ai_account", { ai_account_id: x.id }, { key: key() });
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "rename_ai_account", { ai_account_id: x.id, friendly_name: "x3" }))).toBe("SVC_RESOURCE_CONFLICT");
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "rename_ai_account", { ai_account_id: "01JNOTANACCOUNT0000000000A", friendly_name: "x4" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "rename_ai_account", { ai_account_id: "nope", friendly_name: "x4" }))).toBe("SVC_RESOURCE_NOT_FOUND");
  });

  it("freezes (key required) and unfreezes, audited; a frozen account's credential gets 403 SVC_FROZEN on the next request", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const cred = await seedTokenCredential(env.world, account);
    await env.auth.authenticate(cred.authorization);
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "freeze_ai_account", { ai_account_id: account.id }))).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    const frozen = await call<AiAccountView>(env, env.a.principal, "freeze_ai_account", { ai_account_id: account.id }, { key: key() });
    expect(frozen.body.state).toBe("frozen");
    expect(await codeOf(env.auth.authenticate(cred.authorization))).toBe("SVC_FROZEN");
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "freeze_ai_account", { ai_account_id: account.id }, { key: key() }))).toBe("SVC_RESOURCE_CONFLICT");
    const thawed = await call<AiAccountView>(env, env.a.principal, "unfreeze_ai_account", { ai_account_id: account.id });
    expect(thawed.body.state).toBe("active");
    await expect(env.auth.authenticate(cred.authorization)).resolves.toBeDefined();
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "unfreeze_ai_account", { ai_account_id: account.id }))).toBe("SVC_RESOURCE_CONFLICT");
    const activities = await auditActivities(env, env.a.workspace_id);
    expect(activities.filter((a) => a === "ai_account.frozen" || a === "ai_account.unfrozen")).toEqual(["ai_account.frozen", "ai_account.unfrozen"]);
  });

  it("replays a freeze with the same key; the same key on another endpoint is a conflict", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const k = key();
    const first = await call<AiAccountView>(env, env.a.principal, "freeze_ai_account", { ai_account_id: account.id }, { key: k });
    const again = await call<AiAccountView>(env, env.a.principal, "freeze_ai_account", { ai_account_id: account.id }, { key: k });
    expect(again).toEqual(first);
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "revoke_ai_account", { ai_account_id: account.id }, { key: k }))).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("revokes an account and all its active credentials in one transaction, one audit row each", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const c1 = await seedTokenCredential(env.world, account);
    const c2 = await seedTokenCredential(env.world, account, { tier: "administrative", scopes: ["manage_webhooks"] });
    const gone = await seedTokenCredential(env.world, account, { state: "revoked", revokedAt: env.world.clock.now() });
    const other = await seedAccount(env.world, env.a.workspace_id);
    const bystander = await seedTokenCredential(env.world, other);
    await env.auth.authenticate(c1.authorization);

    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "revoke_ai_account", { ai_account_id: account.id }))).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    const res = await call<AiAccountView>(env, env.a.principal, "revoke_ai_account", { ai_account_id: account.id }, { key: key() });
    expect(res.body.state).toBe("revoked");
    const ws = env.a.workspace_id;
    for (const c of [c1, c2, gone]) expect((await env.world.deps.stores.credentials.findById({ workspaceId: ws, credentialId: c.credential.id }))?.state).toBe("revoked");
    expect((await env.world.deps.stores.credentials.findById({ workspaceId: ws, credentialId: bystander.credential.id }))?.state).toBe("active");
    const rows = await env.world.deps.stores.audit.list({ workspaceId: ws, activity: "credential.revoked", messageId: null, includeOperatorSignificant: true, after: null, limit: 100 });
    expect(rows.map((r) => r.subjectId).sort()).toEqual([c1.credential.id, c2.credential.id].sort());
    expect(await auditActivities(env, ws)).toContain("ai_account.revoked");
    expect(await codeOf(env.auth.authenticate(c1.authorization))).toBe("SVC_UNAUTHENTICATED");
    expect(await codeOf(env.auth.authenticate(c2.authorization))).toBe("SVC_UNAUTHENTICATED");
    expect(await codeOf(call<AiAccountView>(env, env.a.principal, "revoke_ai_account", { ai_account_id: account.id }, { key: key() }))).toBe("SVC_RESOURCE_CONFLICT");
  });

  it("rolls the whole account revoke back when any of its writes fails", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const c1 = await seedTokenCredential(env.world, account);
    const c2 = await seedTokenCredential(env.world, account);
    let credentialRows = 0;
    env.world.deps.tx = new InMemoryTxRunner((tx) => {
      const stores = env.world.bind(tx);
      const audit = Object.create(stores.audit) as Stores["audit"];
      audit.append = async (p) => {
        if (p.entry.activity === "credential.revoked" && ++credentialRows === 2) throw new Error("disk full");
        return stores.audit.append(p);
      };
      return { ...stores, audit };
    });
    await expect(call<AiAccountView>(env, env.a.principal, "revoke_ai_account", { ai_account_id: account.id }, { key: key() })).rejects.toThrow("disk full");
    const ws = env.a.workspace_id;
    expect((await env.world.deps.stores.accounts.findById({ workspaceId: ws, accountId: account.id }))?.state).toBe("active");
    for (const c of [c1, c2]) expect((await env.world.deps.stores.credentials.findById({ workspaceId: ws, credentialId: c.credential.id }))?.state).toBe("active");
    const activities = await auditActivities(env, ws);
    expect(activities).not.toContain("ai_account.revoked");
    expect(activities).not.toContain("credential.revoked");
  });
});

describe("credentials: issue", () => {
  it("returns 201 {credential, token} once; the token authenticates; the default expiry is the tier maximum", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const now = env.world.clock.now();
    const res = await issue(env, env.a.principal, { ai_account_id: account.id, tier: "operational", scopes: ["send", "get_pending", "ack", "send"] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      credential: {
        id: anyString,
        ai_account_id: account.id,
        tier: "operational",
        scopes: ["send", "get_pending", "ack"],
        name: "worker on box-1",
        state: "active",
        expires_at: new Date(now.getTime() + 365 * DAY_MS).toISOString(),
        project_id: null,
        created_at: now.toISOString(),
      },
      token: matching(/^agq_op_[A-Za-z0-9_-]{43}$/),
    });
    const principal = await env.auth.authenticate(`Bearer ${res.body.token}`);
    expect(principal.credential.id).toBe(res.body.credential.id);
    expect(principal.account.id).toBe(account.id);
    expect(await auditActivities(env, env.a.workspace_id)).toContain("credential.issued");

    const admin = await issue(env, env.a.principal, { ai_account_id: account.id, tier: "administrative", scopes: ["manage_webhooks"] });
    expect(admin.body.token).toMatch(/^agq_ad_/);
    expect(admin.body.credential.expires_at).toBe(new Date(now.getTime() + 90 * DAY_MS).toISOString());
  });

  it("with form mcp_config also returns a paste-ready Streamable HTTP configuration", async () => {
    const env = await setup();
    const res = await issue(env, env.a.principal, { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send"], form: "mcp_config" });
    expect(res.body.mcp_config).toEqual({ mcpServers: { agentq: { type: "http", url: "https://queue.example.test/mcp", headers: { Authorization: `Bearer ${res.body.token}` } } } });
    const plain = await issue(env, env.a.principal, { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send"] });
    expect(plain.body).not.toHaveProperty("mcp_config");
    expect(await codeOf(issue(env, env.a.principal, { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send"], form: "yaml" }))).toBe("SVC_MALFORMED_REQUEST");
  });

  it("with toolsets names them in the configuration's URL, in catalogue order, and replays them; toolsets without mcp_config or unknown ones are refused", async () => {
    const env = await setup();
    const input = { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send", "write_session_state"], form: "mcp_config", toolsets: ["session_state", "messaging", "messaging"] };
    const k = key();
    const res = await issue(env, env.a.principal, input, { key: k });
    expect(res.body.mcp_config?.mcpServers.agentq?.url).toBe("https://queue.example.test/mcp?toolsets=messaging,session_state");
    expect(JSON.stringify((await issue(env, env.a.principal, input, { key: k })).body)).toBe(JSON.stringify(res.body));
    expect(await codeOf(issue(env, env.a.principal, { ...input, toolsets: ["admin"] }, { key: k }))).toBe("SVC_IDEMPOTENCY_CONFLICT");
    const none = await issue(env, env.a.principal, { ...input, toolsets: [] });
    expect(none.body.mcp_config?.mcpServers.agentq?.url).toBe("https://queue.example.test/mcp");
    const { form: _form, ...withoutForm } = input;
    expect(await codeOf(issue(env, env.a.principal, withoutForm))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(issue(env, env.a.principal, { ...input, toolsets: ["everything"] }))).toBe("SVC_MALFORMED_REQUEST");
  });

  it("replays an issue with the same key (same token, one credential) without storing the token anywhere", async () => {
    const env = await setup();
    const k = key();
    const input = { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send"], form: "mcp_config" };
    const first = await issue(env, env.a.principal, input, { key: k });
    const again = await issue(env, env.a.principal, input, { key: k });
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
    const list = await call<Page<CredentialDetailView>>(env, env.a.principal, "list_credentials", { ai_account_id: env.a.ai_account_id });
    expect(list.body.items).toHaveLength(2);
    expect(await codeOf(issue(env, env.a.principal, { ...input, scopes: ["ack"] }, { key: k }))).toBe("SVC_IDEMPOTENCY_CONFLICT");

    const token: string = first.body.token;
    const stored = JSON.stringify([env.world.tables.messaging.idempotency.values(), env.world.tables.messaging.audit.values()]);
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(7));
    const hash = env.world.tables.access.credentials.get(first.body.credential.id)?.tokenHash;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(hash);
  });

  it("refuses scope, tier, project and expiry combinations with 400 SVC_MALFORMED_REQUEST", async () => {
    const env = await setup();
    const id = env.a.ai_account_id;
    const now = env.world.clock.now().getTime();
    const cases: Record<string, unknown>[] = [
      { tier: "operational", scopes: ["send", "manage_credentials"] },
      { tier: "administrative", scopes: ["manage_webhooks", "send"] },
      { tier: "administrative", scopes: ["manage_dlq"] },
      { tier: "operational", scopes: ["manage_policies"] },
      { tier: "operational", scopes: ["fly"] },
      { tier: "superuser", scopes: [] },
      { tier: "administrative", scopes: ["manage_webhooks"], project_id: "01JPR0JECT0000000000000000" },
      { tier: "operational", scopes: ["send"], project_id: "not-a-ulid" },
      { tier: "operational", scopes: ["send"], expires_at: new Date(now).toISOString() },
      { tier: "operational", scopes: ["send"], expires_at: new Date(now - 1000).toISOString() },
      { tier: "operational", scopes: ["send"], expires_at: new Date(now + 365 * DAY_MS + 1000).toISOString() },
      { tier: "administrative", scopes: ["manage_webhooks"], expires_at: new Date(now + 90 * DAY_MS + 1000).toISOString() },
      { tier: "operational", scopes: ["send"], expires_at: "tomorrow" },
      { tier: "operational", scopes: ["send"], name: "   " },
      { tier: "operational", scopes: "send" },
    ];
    for (const c of cases) {
      expect({ c, code: await codeOf(issue(env, env.a.principal, { ai_account_id: id, ...c })) }).toEqual({ c, code: "SVC_MALFORMED_REQUEST" });
    }
    const atMax = await issue(env, env.a.principal, { ai_account_id: id, tier: "administrative", scopes: ["manage_webhooks"], expires_at: new Date(now + 90 * DAY_MS).toISOString() });
    expect(atMax.status).toBe(201);
    await seedProject(env, env.a.workspace_id);
    const project = await issue(env, env.a.principal, { ai_account_id: id, tier: "operational", scopes: ["send"], project_id: "01JPR0JECT0000000000000000", expires_at: new Date(now + HOUR_MS).toISOString() });
    expect(project.body.credential).toMatchObject({ project_id: "01JPR0JECT0000000000000000", expires_at: new Date(now + HOUR_MS).toISOString() });
  });

  it("refuses missing, revoked and foreign accounts with 404; operational callers 403 tier; no manage_credentials 403 scope", async () => {
    const env = await setup();
    const revoked = await seedAccount(env.world, env.a.workspace_id, { state: "revoked" });
    const base = { tier: "operational", scopes: ["send"] };
    expect(await codeOf(issue(env, env.a.principal, { ...base, ai_account_id: "01JNOSUCHACCOUNT0000000000" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(issue(env, env.a.principal, { ...base, ai_account_id: revoked.id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(issue(env, env.a.principal, { ...base, ai_account_id: env.b.ai_account_id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    // A project restriction names a project of the caller's workspace (DESIGN §2c): another's, or none, is 404 as well.
    await seedProject(env, env.b.workspace_id);
    expect(await codeOf(issue(env, env.a.principal, { ...base, ai_account_id: env.a.ai_account_id, project_id: PROJECT_ID }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(issue(env, env.a.principal, { ...base, ai_account_id: env.a.ai_account_id, project_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    const account = await seedAccount(env.world, env.a.workspace_id);
    const op = await seedTokenCredential(env.world, account, { scopes: ["send"] });
    const adminNoScope = await seedTokenCredential(env.world, account, { tier: "administrative", scopes: ["manage_ai_accounts"] });
    expect(await codeOf(issue(env, op.authorization, { ...base, ai_account_id: account.id }))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await codeOf(issue(env, adminNoScope.authorization, { ...base, ai_account_id: account.id }))).toBe("SVC_SCOPE_INSUFFICIENT");
    expect(await codeOf(call<CredentialDetailView>(env, adminNoScope.authorization, "revoke_credential", { credential_id: op.credential.id }, { key: key() }))).toBe("SVC_SCOPE_INSUFFICIENT");
    expect((await call<CredentialDetailView>(env, adminNoScope.authorization, "get_credential", { credential_id: op.credential.id })).status).toBe(200);
    expect(await codeOf(call<Page<CredentialDetailView>>(env, op.authorization, "list_credentials"))).toBe("SVC_TIER_INSUFFICIENT");
  });
});

describe("credentials: read", () => {
  it("lists newest first with paging and an account filter, and never shows the token or its hash", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const issued = [];
    for (let i = 0; i < 3; i++) issued.push(await issue(env, env.a.principal, { ai_account_id: account.id, tier: "operational", scopes: ["send"], name: `c${i}` }));
    const page1 = await call<Page<CredentialDetailView>>(env, env.a.principal, "list_credentials", { ai_account_id: account.id, limit: 2 });
    expect(page1.body.items.map((c) => c.name)).toEqual(["c2", "c1"]);
    const page2 = await call<Page<CredentialDetailView>>(env, env.a.principal, "list_credentials", { ai_account_id: account.id, limit: 2, cursor: page1.body.next_cursor });
    expect(page2.body).toEqual({ items: [containing({ name: "c0" })], next_cursor: null });
    expect(await codeOf(call<Page<CredentialDetailView>>(env, env.a.principal, "list_credentials", { limit: 2, cursor: page1.body.next_cursor }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(call<Page<CredentialDetailView>>(env, env.a.principal, "list_credentials", { ai_account_id: "zzz" }))).toBe("SVC_MALFORMED_REQUEST");

    const all = await call<Page<CredentialDetailView>>(env, env.a.principal, "list_credentials");
    expect(all.body.items.map((c) => c.ai_account_id)).toContain(env.a.ai_account_id);
    const one = await call<CredentialDetailView>(env, env.a.principal, "get_credential", { credential_id: issued[0]!.body.credential.id });
    expect(one.body).toEqual({ ...issued[0]!.body.credential, revoked_at: null, rotated_from_id: null, rotated_to_id: null, last_used_at: null });
    const text = JSON.stringify([all.body, page1.body, one.body]);
    for (const i of issued) expect(text).not.toContain(i.body.token);
    expect(text).not.toMatch(/token/i);
  });
});

describe("credentials: rotate", () => {
  it("issues a successor with the same scopes; the predecessor works until the overlap ends, then 401", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    await seedProject(env, env.a.workspace_id);
    const old = (await issue(env, env.a.principal, { ai_account_id: account.id, tier: "operational", scopes: ["send", "ack"], project_id: PROJECT_ID })).body;
    await env.auth.authenticate(`Bearer ${old.token}`);
    env.world.clock.advance(HOUR_MS);
    expect(await codeOf(call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: old.credential.id, overlap_window: "PT5M" }))).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    const res = await call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: old.credential.id, overlap_window: "PT5M", name: "worker on box-2", form: "mcp_config" }, { key: key() });
    expect(res.status).toBe(201);
    const now = env.world.clock.now().getTime();
    expect(res.body.credential).toEqual({
      id: anyString,
      ai_account_id: account.id,
      tier: "operational",
      scopes: ["send", "ack"],
      name: "worker on box-2",
      state: "active",
      expires_at: new Date(now + 365 * DAY_MS).toISOString(),
      project_id: "01JPR0JECT0000000000000000",
      created_at: new Date(now).toISOString(),
    });
    expect(res.body.token).not.toBe(old.token);
    expect(res.body.mcp_config?.mcpServers.agentq?.headers.Authorization).toBe(`Bearer ${res.body.token}`);
    expect((await env.auth.authenticate(`Bearer ${res.body.token}`)).credential.rotatedFromId).toBe(old.credential.id);

    const before = await call<CredentialDetailView>(env, env.a.principal, "get_credential", { credential_id: old.credential.id });
    expect(before.body).toMatchObject({ state: "active", rotated_to_id: res.body.credential.id, expires_at: new Date(now + 5 * 60_000).toISOString() });
    expect(await auditActivities(env, env.a.workspace_id)).toContain("credential.rotated");

    env.world.clock.advance(5 * 60_000 - 1);
    await expect(env.auth.authenticate(`Bearer ${old.token}`)).resolves.toBeDefined();
    env.world.clock.advance(1);
    expect(await codeOf(env.auth.authenticate(`Bearer ${old.token}`))).toBe("SVC_UNAUTHENTICATED");
    await expect(env.auth.authenticate(`Bearer ${res.body.token}`)).resolves.toBeDefined();
  });

  it("another process still holding the predecessor in its cache refuses it within 30 s of the overlap end", async () => {
    const env = await setup();
    const elsewhere = createAuthenticator(env.world.deps);
    const old = (await issue(env, env.a.principal, { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send"] })).body;
    await elsewhere.authenticate(`Bearer ${old.token}`);
    await call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: old.credential.id, overlap_window: "PT1S" }, { key: key() });
    env.world.clock.advance(30_000);
    expect(await codeOf(elsewhere.authenticate(`Bearer ${old.token}`))).toBe("SVC_UNAUTHENTICATED");
  });

  it("refuses bad overlap windows (400), rotated or revoked credentials (409), retired scopes (403 SVC_SCOPE_NOT_ISSUABLE)", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const c = (await issue(env, env.a.principal, { ai_account_id: account.id, tier: "operational", scopes: ["send"] })).body.credential;
    for (const w of ["PT0S", "PT0.5S", "PT1.5S", "P2D", "PT24H1S", "5m", "", "P1W"]) {
      expect({ w, code: await codeOf(call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: c.id, overlap_window: w }, { key: key() })) }).toEqual({ w, code: "SVC_MALFORMED_REQUEST" });
    }
    expect((await call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: c.id, overlap_window: "P1D" }, { key: key() })).status).toBe(201);
    expect(await codeOf(call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: c.id, overlap_window: "PT1S" }, { key: key() }))).toBe("SVC_RESOURCE_CONFLICT");

    const r = (await issue(env, env.a.principal, { ai_account_id: account.id, tier: "operational", scopes: ["send"] })).body.credential;
    await call<CredentialDetailView>(env, env.a.principal, "revoke_credential", { credential_id: r.id }, { key: key() });
    expect(await codeOf(call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: r.id, overlap_window: "PT1S" }, { key: key() }))).toBe("SVC_RESOURCE_CONFLICT");

    const legacy = await seedTokenCredential(env.world, account, { tier: "administrative", scopes: ["manage_webhooks", "manage_dlq"] });
    expect(await codeOf(call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: legacy.credential.id, overlap_window: "PT1S" }, { key: key() }))).toBe("SVC_SCOPE_NOT_ISSUABLE");
    // The retired scope stays valid on the credential that carries it.
    expect((await env.auth.authenticate(legacy.authorization)).credential.scopes).toContain("manage_dlq");

    const expired = await seedTokenCredential(env.world, account, { expiresAt: env.world.clock.now() });
    expect(await codeOf(call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: expired.credential.id, overlap_window: "PT1S" }, { key: key() }))).toBe("SVC_RESOURCE_CONFLICT");
    expect(await codeOf(call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: "01JNOSUCHCREDENTIAL0000000", overlap_window: "PT1S" }, { key: key() }))).toBe("SVC_RESOURCE_NOT_FOUND");
  });

  it("of concurrent rotations of one credential, exactly one succeeds and the rest get 409", async () => {
    const env = await setup();
    const c = (await issue(env, env.a.principal, { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send"] })).body.credential;
    const results = await Promise.all(Array.from({ length: 6 }, () => call<Issued>(env, env.a.principal, "rotate_credential", { credential_id: c.id, overlap_window: "PT1M" }, { key: key() }).then((r) => String(r.status), (e: unknown) => (e instanceof DomainError ? e.code : "other"))));
    expect(results.filter((r) => r === "201")).toHaveLength(1);
    expect(results.filter((r) => r === "SVC_RESOURCE_CONFLICT")).toHaveLength(5);
  });
});

describe("credentials: revoke", () => {
  it("revokes (key required): the next request in this process gets 401, another process within 30 s; a second revoke gets 409", async () => {
    const env = await setup();
    const elsewhere = createAuthenticator(env.world.deps);
    const c = (await issue(env, env.a.principal, { ai_account_id: env.a.ai_account_id, tier: "operational", scopes: ["send"] })).body;
    const header = `Bearer ${c.token}`;
    await env.auth.authenticate(header);
    await elsewhere.authenticate(header);
    expect(await codeOf(call<CredentialDetailView>(env, env.a.principal, "revoke_credential", { credential_id: c.credential.id }))).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    const k = key();
    const res = await call<CredentialDetailView>(env, env.a.principal, "revoke_credential", { credential_id: c.credential.id }, { key: k });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: c.credential.id, state: "revoked", revoked_at: env.world.clock.now().toISOString() });
    expect(await codeOf(env.auth.authenticate(header))).toBe("SVC_UNAUTHENTICATED");
    env.world.clock.advance(30_000);
    expect(await codeOf(elsewhere.authenticate(header))).toBe("SVC_UNAUTHENTICATED");
    expect(await call<CredentialDetailView>(env, env.a.principal, "revoke_credential", { credential_id: c.credential.id }, { key: k })).toEqual(res);
    expect(await codeOf(call<CredentialDetailView>(env, env.a.principal, "revoke_credential", { credential_id: c.credential.id }, { key: key() }))).toBe("SVC_RESOURCE_CONFLICT");
    expect((await env.world.deps.stores.audit.list({ workspaceId: env.a.workspace_id, activity: "credential.revoked", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 })).map((r) => r.subjectId)).toEqual([c.credential.id]);
  });
});

describe("workspace isolation", () => {
  it("an administrator of workspace A cannot see or touch B's accounts or credentials: 404", async () => {
    const env = await setup();
    const bAccount = (await call<AiAccountView>(env, env.b.principal, "create_ai_account", { friendly_name: "b-worker" })).body;
    const bCred = (await issue(env, env.b.principal, { ai_account_id: bAccount.id, tier: "operational", scopes: ["send"] })).body.credential;
    const A = env.a.principal;
    const refusals = [
      call<AiAccountView>(env, A, "get_ai_account", { ai_account_id: bAccount.id }),
      call<AiAccountView>(env, A, "rename_ai_account", { ai_account_id: bAccount.id, friendly_name: "mine" }),
      call<AiAccountView>(env, A, "freeze_ai_account", { ai_account_id: bAccount.id }, { key: key() }),
      call<AiAccountView>(env, A, "unfreeze_ai_account", { ai_account_id: bAccount.id }),
      call<AiAccountView>(env, A, "revoke_ai_account", { ai_account_id: bAccount.id }, { key: key() }),
      issue(env, A, { ai_account_id: bAccount.id, tier: "operational", scopes: ["send"] }),
      call<CredentialDetailView>(env, A, "get_credential", { credential_id: bCred.id }),
      call<Issued>(env, A, "rotate_credential", { credential_id: bCred.id, overlap_window: "PT1S" }, { key: key() }),
      call<CredentialDetailView>(env, A, "revoke_credential", { credential_id: bCred.id }, { key: key() }),
    ];
    for (const r of refusals) expect(await codeOf(r)).toBe("SVC_RESOURCE_NOT_FOUND");
    const accounts = await call<Page<AiAccountView>>(env, A, "list_ai_accounts");
    expect(accounts.body.items.map((a) => a.id)).not.toContain(bAccount.id);
    const creds = await call<Page<CredentialDetailView>>(env, A, "list_credentials");
    expect(creds.body.items.map((c) => c.id)).not.toContain(bCred.id);
    expect((await call<Page<CredentialDetailView>>(env, A, "list_credentials", { ai_account_id: bAccount.id })).body.items).toEqual([]);
    expect((await env.world.deps.stores.accounts.findById({ workspaceId: env.b.workspace_id, accountId: bAccount.id }))?.state).toBe("active");
  });
});

describe("workspace and caller", () => {
  it("any authenticated caller reads its workspace and itself", async () => {
    const env = await setup();
    const account = await seedAccount(env.world, env.a.workspace_id);
    const op = await seedTokenCredential(env.world, account, { scopes: [] });
    const ws = await call<WorkspaceView>(env, op.authorization, "get_workspace");
    expect(ws.body).toEqual({ id: env.a.workspace_id, name: "alpha", state: "active", created_at: env.world.clock.now().toISOString() });
    const me = await call(env, op.authorization, "get_me");
    expect(me.body).toEqual({
      kind: "ai_account",
      // The request before (get_workspace) recorded the account's activity.
      ai_account: { id: account.id, friendly_name: account.friendlyName, state: "active", created_at: account.createdAt.toISOString(), last_active_at: env.world.clock.now().toISOString() },
      credential: containing({ id: op.credential.id, tier: "operational", scopes: [] }),
      workspace: ws.body,
    });
    expect(JSON.stringify(me.body)).not.toContain(op.token);
  });
});
