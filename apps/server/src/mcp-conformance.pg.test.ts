import { bootstrapWorkspace } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { listenHttp, type HttpListener } from "@agentq/http";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { createLogger } from "@agentq/runtime";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { conformanceChecksUnder, spawnConformance } from "./testing/conformance-suite.ts";

// Issue 28: the MCP conformance suite's server scenarios that apply to a product server, against
// the composed server over real HTTP and PostgreSQL. dns-rebinding-protection runs in
// mcp-dns-rebinding.pg.test.ts. The scenarios that need the suite's own reference tools, prompts
// or resources (test_simple_text, test://static-text, test://watched-resource, ...) do not apply:
// docs/decisions.md lists them with the reason; the SDK client tests resources/subscribe and
// unsubscribe on agentq://inbox instead (apps/mcp/src/mcp-sessions.test.ts).
//
// The suite sends no credential (its scenarios are written for servers without authentication)
// while /mcp answers 401 without one, so it talks to a reverse proxy in front of the service
// (whose address is the service's PUBLIC_BASE_URL) that adds a bearer credential, as a
// configured MCP client sends it; everything else reaches the service as the suite wrote it.
export const APPLICABLE_SERVER_SCENARIOS = ["server-initialize", "server-session-lifecycle", "ping", "tools-list", "resources-list", "server-sse-multiple-streams"] as const;

describe("the MCP conformance suite's server scenarios against the composed server", () => {
  let db: TestSchema;
  let service: ComposedService;
  let listener: HttpListener;
  let proxy: Server;
  let publicBaseUrl: string;
  let token: string;
  let out: string;

  beforeAll(async () => {
    db = await createTestSchema({ max: 3 });
    const holder: { service?: ComposedService } = {};
    listener = await listenHttp((request, env) => (holder.service as ComposedService).fetch(request, env), { hostname: "127.0.0.1", port: 0 });
    proxy = createServer((req, res) => {
      const upstream = forward({ host: "127.0.0.1", port: listener.address.port, method: req.method, path: req.url, headers: { ...req.headers, authorization: `Bearer ${token}` } }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.once("error", () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    publicBaseUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl, logger: createLogger("silent"), rateLimiter: "off" });
    holder.service = service;
    token = (await bootstrapWorkspace(service.deps, { workspaceName: "conformance", email: "owner@conformance.test" })).token;
    out = mkdtempSync(join(tmpdir(), "agentq-conformance-"));
  });
  afterAll(async () => {
    service?.draining();
    proxy?.closeAllConnections();
    await new Promise<void>((resolve) => (proxy === undefined ? resolve() : proxy.close(() => resolve())));
    const closed = listener?.close();
    listener?.server.closeAllConnections();
    await closed;
    await service?.close();
    await db?.drop();
    if (out !== undefined) rmSync(out, { recursive: true, force: true });
  });

  it.each(APPLICABLE_SERVER_SCENARIOS)("passes %s", async (scenario) => {
    const dir = join(out, scenario);
    const child = spawnConformance(["server", "--url", `${publicBaseUrl}/mcp`, "--scenario", scenario, "-o", dir]);
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    const checks = conformanceChecksUnder(dir);
    const failed = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    expect(failed, `${output}\n${JSON.stringify(failed)}`).toEqual([]);
    expect(checks.filter((c) => c.status === "SUCCESS").length, output).toBeGreaterThan(0);
    expect(code, output).toBe(0);
  }, 120_000);
});
