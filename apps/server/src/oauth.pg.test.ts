import { bootstrapWorkspace } from "@agentq/core";
import { approveForTest } from "@agentq/core/testing";
import { connectMcpClient, errorCodeOf, serveOnFreePort, structured, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger, deriveSecrets } from "@agentq/runtime";

const REDIRECT = "http://127.0.0.1:43117/callback";

describe("OAuth through the composed server over PostgreSQL (discovery, token endpoint, REST and MCP, Connections)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  let base: string;
  let admin: { authorization: string; workspaceId: string; accountId: string };

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    // The public base URL names the port, known once the socket listens.
    served = await serveOnFreePort((request) => service.fetch(request));
    base = served.url;
    service = composeService({ sql: db.sql, secrets: deriveSecrets("server-oauth-test-master-secret-0123456789"), publicBaseUrl: `${base}/`, logger: createLogger("silent") });
    const b = await bootstrapWorkspace(service.deps, { workspaceName: "oauth-alpha", email: "owner@oauth-alpha.test" });
    admin = { authorization: `Bearer ${b.token}`, workspaceId: b.workspace_id, accountId: b.ai_account_id };
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await db?.drop();
  });

  const form = (path: string, params: Record<string, string>) => fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(params).toString() });
  const rest = (path: string, authorization: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { Authorization: authorization, "Content-Type": "application/json", ...(init.headers as Record<string, string> | undefined) } });

  /** Registers over HTTP, approves through the core (until the consent page exists), exchanges over HTTP. */
  async function connect(aiAccountId: string): Promise<{ clientId: string; tokens: { access_token: string; refresh_token: string; scope: string } }> {
    const reg = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: "Claude Code", redirect_uris: ["http://127.0.0.1/callback"] }) });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const client = await service.deps.stores.oauth.findClient({ clientId });
    const { code, verifier } = await approveForTest(service.deps, { client: client!, workspaceId: admin.workspaceId, aiAccountId, scopes: ["send", "get_pending", "ack", "list_recipients"], redirectUri: REDIRECT });
    const res = await form("/oauth/token", { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: REDIRECT, code_verifier: verifier, resource: `${base}/mcp` });
    expect(res.status, await res.clone().text()).toBe(200);
    return { clientId, tokens: (await res.json()) as { access_token: string; refresh_token: string; scope: string } };
  }

  it("a 401 on /mcp leads to the metadata, whose authorization server is the issuer byte for byte", async () => {
    const challenge = await fetch(`${base}/mcp`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: "{}" });
    expect(challenge.status).toBe(401);
    const header = challenge.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(header)?.[1];
    expect(metadataUrl).toBe(`${base}/.well-known/oauth-protected-resource/mcp`);
    expect(header).toMatch(/scope="[^"]*send[^"]*"/);
    const prm = (await (await fetch(metadataUrl as string)).json()) as { resource: string; authorization_servers: string[] };
    expect(prm.resource).toBe(`${base}/mcp`);
    const issuer = prm.authorization_servers[0] as string;
    expect(issuer).toBe(base);
    const as = await fetch(`${issuer}/.well-known/oauth-authorization-server`);
    expect(as.status).toBe(200);
    const metadata = (await as.json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(issuer);
    expect(metadata).toMatchObject({ token_endpoint: `${base}/oauth/token`, registration_endpoint: `${base}/oauth/register`, code_challenge_methods_supported: ["S256"] });
  });

  it("the access token is an ordinary credential: it works on REST and on MCP, as the chosen AI account", async () => {
    const agent = await (await rest("/v1/ai-accounts", admin.authorization, { method: "POST", body: JSON.stringify({ friendly_name: "claude-code" }) })).json() as { id: string };
    const { tokens } = await connect(agent.id);
    const me = await rest("/v1/me", `Bearer ${tokens.access_token}`);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ ai_account: { id: agent.id, friendly_name: "claude-code" }, credential: { tier: "operational", scopes: ["send", "get_pending", "ack", "list_recipients"] } });
    const mcp = await connectMcpClient(base, `Bearer ${tokens.access_token}`);
    try {
      const result = await mcp.callTool({ name: "list_recipients", arguments: {} });
      expect(errorCodeOf(result)).toBeUndefined();
      expect(JSON.stringify(structured(result))).toContain("claude-code");
    } finally {
      await mcp.close();
    }
  });

  it("disconnecting from Connections ends access on REST and MCP at once, and the refresh token with it", async () => {
    const agent = await (await rest("/v1/ai-accounts", admin.authorization, { method: "POST", body: JSON.stringify({ friendly_name: "cursor-agent" }) })).json() as { id: string };
    const { clientId, tokens } = await connect(agent.id);
    expect((await rest("/v1/me", `Bearer ${tokens.access_token}`)).status).toBe(200);
    const list = (await (await rest("/v1/connections", admin.authorization)).json()) as { items: { id: string; client_id: string; state: string; ai_account: { friendly_name: string } }[] };
    const connection = list.items.find((i) => i.client_id === clientId);
    expect(connection).toMatchObject({ state: "active", ai_account: { friendly_name: "cursor-agent" } });
    const gone = await rest(`/v1/connections/${connection?.id as string}/disconnect`, admin.authorization, { method: "POST", body: "{}" });
    expect(gone.status).toBe(200);
    expect(await gone.json()).toMatchObject({ state: "revoked", revoked_reason: "disconnected" });
    expect((await rest("/v1/me", `Bearer ${tokens.access_token}`)).status).toBe(401);
    const mcpCall = await fetch(`${base}/mcp`, { method: "POST", headers: { Authorization: `Bearer ${tokens.access_token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(mcpCall.status).toBe(401);
    const refresh = await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: "invalid_grant" });
  });

  it("a replayed refresh token revokes the grant in PostgreSQL, with the cause on the grant and an audit row", async () => {
    const { clientId, tokens } = await connect(admin.accountId);
    const next = await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
    expect(next.status).toBe(200);
    const rotated = (await next.json()) as { access_token: string; refresh_token: string };
    expect((await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token })).status).toBe(400);
    expect((await rest("/v1/me", `Bearer ${rotated.access_token}`)).status).toBe(401);
    const [grant] = await db.sql<{ revoked_reason: string }[]>`select revoked_reason from oauth_grants where client_id = ${clientId}`;
    expect(grant?.revoked_reason).toBe("refresh_token_replayed");
    const rows = await db.sql<{ details: { cause: string } }[]>`select details from audit_log where activity = 'oauth_grant.revoked' and workspace_id = ${admin.workspaceId}`;
    expect(rows.map((r) => r.details.cause)).toContain("refresh_token_replayed");
    // Only keyed hashes are stored.
    const stored = await db.sql`select 1 from oauth_refresh_tokens where token_hash = ${rotated.refresh_token} or token_hash like 'agq_%'`;
    expect(stored).toHaveLength(0);
  });
});
