import { testDatabaseUrl } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { runServerCommand, serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// The real server process over a database of its own: start, bootstrap from another process,
// the curl walk-through of the README, the operator freeze, and a SIGTERM drain with a long poll
// in flight.
describe("agentq server process", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url);
    server = await spawnServer(env);
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await server.exited;
    await db.drop();
  });

  const call = async (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it("serves /v1/version and the MCP metadata without a credential", async () => {
    const version = await fetch(`${server.baseUrl}/v1/version`);
    expect(version.status).toBe(200);
    expect(((await version.json()) as { name: string }).name).toBe("agentq");
    const meta = await fetch(`${server.baseUrl}/.well-known/oauth-protected-resource/mcp`);
    expect(meta.status).toBe(200);
  });

  it("bootstraps from a second process, moves a message between two agents, freezes the workspace, then drains on SIGTERM", async () => {
    const boot = await runServerCommand("src/bootstrap.ts", ["--workspace", "acme", "--email", "ops@acme.test", "--json"], env);
    expect(boot.code).toBe(0);
    const admin = JSON.parse(boot.stdout) as { workspace_id: string; token: string };
    expect(admin.token).toMatch(/^agq_ad_/);
    // The plaintext token never reaches the server's logs.
    expect(server.output()).not.toContain(admin.token);

    const planner = await call(admin.token, "POST", "/v1/ai-accounts", { friendly_name: "planner" });
    const builder = await call(admin.token, "POST", "/v1/ai-accounts", { friendly_name: "builder" });
    expect([planner.status, builder.status]).toEqual([201, 201]);
    const issue = (accountId: string, scopes: string[]) =>
      call(admin.token, "POST", "/v1/credentials", { ai_account_id: accountId, tier: "operational", scopes, name: "test" });
    const sender = (await issue(planner.body.id as string, ["send"])).body.token as string;
    const receiver = (await issue(builder.body.id as string, ["get_pending", "ack"])).body.token as string;

    const sent = await call(sender, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "builder" }, template: "directive" }, payload: { directive_kind: "build", summary: "s", instructions: "i" } }, { "Idempotency-Key": "k1" });
    expect(sent.status).toBe(201);
    const pending = await call(receiver, "POST", "/v1/messages/get-pending", { max: 10 });
    expect(pending.body.items).toHaveLength(1);
    const item = pending.body.items[0];
    const acked = await call(receiver, "POST", `/v1/messages/${item.envelope.message_id}/ack`, { lease_id: item.lease.lease_id, outcome_summary: "ok" });
    expect(acked.body.state).toBe("acknowledged");

    // Operator freeze bites on the very next request; unfreeze restores it.
    const freeze = await runServerCommand("src/admin/main.ts", ["workspace", "freeze", admin.workspace_id], env);
    expect(freeze.code).toBe(0);
    expect((await call(receiver, "POST", "/v1/messages/get-pending", {})).body.error.code).toBe("SVC_FROZEN");
    expect((await runServerCommand("src/admin/main.ts", ["workspace", "unfreeze", admin.workspace_id], env)).code).toBe(0);
    expect((await call(receiver, "POST", "/v1/messages/get-pending", {})).status).toBe(200);

    // A long poll in flight when SIGTERM arrives still gets its answer, and the process exits 0.
    const longPoll = call(receiver, "POST", "/v1/messages/get-pending", { wait: "PT3S" });
    await new Promise((r) => setTimeout(r, 300));
    server.child.kill("SIGTERM");
    const answered = await longPoll;
    expect(answered.status).toBe(200);
    expect(answered.body.items).toEqual([]);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain("stopped cleanly");
  });
});
