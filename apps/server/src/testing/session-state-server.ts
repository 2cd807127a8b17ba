import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { OPERATIONAL_SCOPES, bootstrapWorkspace } from "@agentq/core";
import { ManualClock, TEST_SECRETS } from "@agentq/core/testing";
import { connectMcpClient, serveOnFreePort, structured, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { expect } from "vitest";
import { composeService, type ComposedService } from "../compose.ts";
import { createLogger } from "@agentq/runtime";

// The composed server over a fresh PostgreSQL schema on a real port, with a bootstrapped
// workspace, for the session-state Done-when tests (REST, MCP and the CLI against one server).

type Json = Record<string, any>;

const AGENTQ = fileURLToPath(new URL("../../../cli/bin/agentq.js", import.meta.url));
const run = promisify(execFile);

/** A running server and the helpers its tests call it with. */
export interface SessionStateServer {
  db: TestSchema;
  service: ComposedService;
  served: ServedApp;
  clock: ManualClock;
  /** One REST call with a bearer token (JSON body, a fresh Idempotency-Key when there is one). */
  rest(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** A REST call that must succeed (2xx); returns the body. */
  ok(token: string, method: string, path: string, body?: unknown): Promise<Json>;
  /** A new AI account with an operational credential carrying every operational scope. */
  agent(name: string): Promise<{ id: string; token: string }>;
  /** An MCP SDK client as `token`; `tool` calls a tool that must succeed and remembers its name in `called`. */
  mcp(token: string): Promise<{ client: Awaited<ReturnType<typeof connectMcpClient>>; tool: (name: string, args: Record<string, unknown>) => Promise<Json>; called: Set<string> }>;
  /** Runs the real `agentq` CLI with `--json` as `token`; returns the parsed output. */
  cli(token: string, ...args: string[]): Promise<Json>;
  /** Runs the real `agentq` CLI (human output); returns stdout. */
  cliText(token: string, ...args: string[]): Promise<string>;
  close(): Promise<void>;
}

/** Starts the composed server over a new test schema; `workspace` names the bootstrapped workspace. */
export async function startSessionStateServer(workspace: string): Promise<SessionStateServer> {
  const clock = new ManualClock(new Date());
  const db = await createTestSchema({ max: 5 });
  const service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: "http://agentq.test", logger: createLogger("silent"), rateLimiter: "off", clock });
  const served = await serveOnFreePort((request) => service.fetch(request));
  const admin = (await bootstrapWorkspace(service.deps, { workspaceName: workspace, email: `owner@${workspace}.test` })).token;
  let keys = 0;
  const rest = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${served.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `k-${++keys}` }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const ok = async (token: string, method: string, path: string, body?: unknown) => {
    const r = await rest(token, method, path, body);
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body;
  };
  const env = (token: string) => ({ ...process.env, SVC_BASE_URL: served.url, SVC_CREDENTIAL: token });
  return {
    db,
    service,
    served,
    clock,
    rest,
    ok,
    async agent(name) {
      const account = await ok(admin, "POST", "/v1/ai-accounts", { friendly_name: name });
      const cred = await ok(admin, "POST", "/v1/credentials", { ai_account_id: account.id, tier: "operational", scopes: OPERATIONAL_SCOPES, name: `${name}-box` });
      return { id: account.id as string, token: cred.token as string };
    },
    async mcp(token) {
      const client = await connectMcpClient(served.url, `Bearer ${token}`);
      const called = new Set<string>();
      const tool = async (name: string, args: Record<string, unknown>): Promise<Json> => {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, `${name}: ${JSON.stringify(result.structuredContent)}`).not.toBe(true);
        called.add(name);
        return structured(result);
      };
      return { client, tool, called };
    },
    async cli(token, ...args) {
      const { stdout } = await run(process.execPath, [AGENTQ, "--json", ...args], { env: env(token) });
      return JSON.parse(stdout) as Json;
    },
    async cliText(token, ...args) {
      return (await run(process.execPath, [AGENTQ, ...args], { env: env(token) })).stdout;
    },
    async close() {
      await served.close();
      await service.close();
      await db.drop();
    },
  };
}
