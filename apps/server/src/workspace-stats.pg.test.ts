import { bootstrapWorkspace, recordMinuteStats } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { connectMcpClient, errorCodeOf, serveOnFreePort, structured, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";

// Issue 29, the minute series (DESIGN §2c Telemetry) over real HTTP on PostgreSQL: the background
// writer records the last whole minutes, GET /v1/workspaces/me/stats and the MCP tool
// get_workspace_stats answer the last hour (and day) of the caller's workspace only.

type Json = Record<string, any>;

let db: TestSchema;
let service: ComposedService;
let served: ServedApp;
let adminA: string;
let adminB: string;

let keys = 0;

async function rest(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${served.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `k-${++keys}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

beforeAll(async () => {
  db = await createTestSchema({ max: 5 });
  service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: "http://agentq.test", logger: createLogger("silent"), rateLimiter: "off" });
  served = await serveOnFreePort((request) => service.fetch(request));
  adminA = (await bootstrapWorkspace(service.deps, { workspaceName: "stats-a", email: "owner@stats-a.test" })).token;
  adminB = (await bootstrapWorkspace(service.deps, { workspaceName: "stats-b", email: "owner@stats-b.test" })).token;
});
afterAll(async () => {
  await served?.close();
  await service?.close();
  await db?.drop();
});

describe("GET /v1/workspaces/me/stats (the minute series)", () => {
  it("answers the last hour from what the background writer recorded, over REST and MCP, for the caller's workspace only", async () => {
    const account = await rest(adminA, "POST", "/v1/ai-accounts", { friendly_name: "worker" });
    const token = (await rest(adminA, "POST", "/v1/credentials", { ai_account_id: account.body.id, tier: "operational", scopes: ["send", "get_pending", "ack"], name: "w" })).body.token as string;
    for (let i = 0; i < 4; i++) expect((await rest(token, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "worker" }, template: "note" }, payload: { text: `n${i}` } })).status).toBe(201);
    const claimed = await rest(token, "POST", "/v1/messages/get-pending", { max: 1 });
    const item = claimed.body.items[0];
    expect((await rest(token, "POST", `/v1/messages/${item.envelope.message_id}/ack`, { lease_id: item.lease.lease_id })).status).toBe(200);
    // The database clock cannot move: the activity is moved a minute and a half into the past
    // instead, so that it falls in a whole minute the writer records.
    await db.sql`update audit_log set occurred_at = occurred_at - interval '90 seconds'`;
    await db.sql`update messages set accepted_at = accepted_at - interval '90 seconds'`;
    await db.sql`update audit_unsealed set occurred_at = occurred_at - interval '90 seconds'`;
    expect(await recordMinuteStats(service.deps)).toBeGreaterThan(0);

    const hour = await rest(adminA, "GET", "/v1/workspaces/me/stats?window=PT1H");
    expect(hour.status).toBe(200);
    expect(hour.body.window).toBe("PT1H");
    expect(hour.body.minutes).toHaveLength(60);
    const sum = (body: Json, field: string) => (body.minutes as Json[]).reduce((n, m) => n + (m[field] as number), 0);
    expect(sum(hour.body, "sent")).toBe(4);
    expect(sum(hour.body, "acknowledged")).toBe(1);
    const last = (hour.body.minutes as Json[]).at(-1) as Json;
    expect(last.pending).toBe(3);
    expect(last.oldest_pending_age_seconds).toBeGreaterThanOrEqual(90);
    expect(Date.parse(hour.body.to) - Date.parse(hour.body.from)).toBe(3_600_000);

    const day = await rest(adminA, "GET", "/v1/workspaces/me/stats?window=P1D");
    expect(day.body.minutes).toHaveLength(1440);
    expect(sum(day.body, "sent")).toBe(4);
    // The default window is the hour; any other window is refused with a code.
    expect((await rest(adminA, "GET", "/v1/workspaces/me/stats")).body.window).toBe("PT1H");
    expect((await rest(adminA, "GET", "/v1/workspaces/me/stats?window=P7D")).body.error.code).toBe("SVC_MALFORMED_REQUEST");
    // An operational credential may not read it; another workspace sees none of A's minutes.
    expect((await rest(token, "GET", "/v1/workspaces/me/stats")).status).toBe(403);
    const other = await rest(adminB, "GET", "/v1/workspaces/me/stats");
    expect(sum(other.body, "sent") + sum(other.body, "pending")).toBe(0);

    // The MCP tool of the admin toolset answers the same.
    const client = await connectMcpClient(served.url, `Bearer ${adminA}`);
    try {
      const viaMcp = structured(await client.callTool({ name: "get_workspace_stats", arguments: { window: "PT1H" } }));
      expect(sum(viaMcp, "sent")).toBe(4);
      expect(errorCodeOf(await client.callTool({ name: "get_workspace_stats", arguments: { window: "P2D" } }))).toBe("SVC_MALFORMED_REQUEST");
    } finally {
      await client.close();
    }
  });
});
