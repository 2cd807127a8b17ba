import { freePort } from "@agentq/postgres";
import { testDatabaseUrl } from "@agentq/postgres/testing";
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { runServerCommand, serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// Issue 29, metrics: the real server process with METRICS_PORT serves Prometheus text on a
// listener of its own, and a real Prometheus (Debian's package, installed by
// tooling/setup/system-packages.sh) scrapes it every second; its HTTP API then answers the send
// counter and the pending gauge. A replayed send (same Idempotency-Key) and a refused send never
// count: the counter moves only where a send committed.

const PROMETHEUS = process.env.PROMETHEUS_PATH ?? "/usr/bin/prometheus";

interface PromVector {
  status: string;
  data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

async function until<T>(read: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("Prometheus metrics (METRICS_PORT)", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;
  let metricsPort: number;
  let prometheus: ChildProcess | undefined;
  let promDir: string;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url, { METRICS_PORT: "0", METRICS_QUEUE_STATS_SECONDS: "1" });
    server = await spawnServer(env);
    const line = await until(async () => server.output().split("\n").find((l) => l.includes('"metrics listening"')), 10_000, "metrics listening line");
    metricsPort = (JSON.parse(line) as { port: number }).port;
    promDir = mkdtempSync(join(tmpdir(), "agentq-prometheus-"));
  }, 120_000);
  afterAll(async () => {
    if (prometheus !== undefined && prometheus.exitCode === null) {
      prometheus.kill("SIGTERM");
      await new Promise((r) => prometheus?.once("exit", r));
    }
    if (server?.child.exitCode === null) server.child.kill("SIGTERM");
    await server?.exited;
    if (promDir !== undefined) rmSync(promDir, { recursive: true, force: true });
    await db?.drop();
  }, 60_000);

  const call = async (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it("serves /metrics apart from the API, and a real Prometheus reads the send counter and the pending gauge", async () => {
    // The API's port has no /metrics; the metrics listener has nothing else.
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/version`)).status).toBe(404);

    const boot = await runServerCommand("src/bootstrap.ts", ["--workspace", "metrics", "--email", "ops@metrics.test", "--json"], env);
    expect(boot.code).toBe(0);
    const admin = JSON.parse(boot.stdout) as { token: string };
    const planner = await call(admin.token, "POST", "/v1/ai-accounts", { friendly_name: "planner" });
    const builder = await call(admin.token, "POST", "/v1/ai-accounts", { friendly_name: "builder" });
    expect([planner.status, builder.status]).toEqual([201, 201]);
    const issue = async (accountId: string, scopes: string[]) => (await call(admin.token, "POST", "/v1/credentials", { ai_account_id: accountId, tier: "operational", scopes, name: "test" })).body.token as string;
    const sender = await issue(planner.body.id as string, ["send"]);
    const receiver = await issue(builder.body.id as string, ["get_pending", "ack"]);
    let keys = 0;
    const send = (headers: Record<string, string> = {}, recipient = "builder") =>
      call(sender, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: recipient }, template: "directive" }, payload: { directive_kind: "build", summary: "s", instructions: "i" } }, { "Idempotency-Key": `k-${++keys}`, ...headers });
    expect((await send({ "Idempotency-Key": "once" })).status).toBe(201);
    // A replay of the same key answers the stored send and commits nothing new.
    expect((await send({ "Idempotency-Key": "once" })).status).toBe(201);
    expect((await send()).status).toBe(201);
    expect((await send()).status).toBe(201);
    // Refused: no such recipient, nothing committed.
    expect((await send({}, "nobody")).body.error.code).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toMatch(/^agentq_messages_sent_total 3$/m);
    expect(text).toMatch(/^agentq_http_request_duration_seconds_count\{method="POST",route="\/v1\/messages\/send",status="201"\} 4$/m);
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    // No label carries a workspace id unless METRICS_WORKSPACE_LABELS=on.
    expect(text).not.toContain("workspace_id");

    const promPort = await freePort();
    const config = join(promDir, "prometheus.yml");
    writeFileSync(config, `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: agentq\n    static_configs:\n      - targets: ["127.0.0.1:${metricsPort}"]\n`);
    let promOutput = "";
    prometheus = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${join(promDir, "data")}`, `--web.listen-address=127.0.0.1:${promPort}`], { stdio: ["ignore", "pipe", "pipe"] });
    prometheus.stdout?.on("data", (c: Buffer) => (promOutput += c.toString("utf8")));
    prometheus.stderr?.on("data", (c: Buffer) => (promOutput += c.toString("utf8")));
    const query = async (expr: string): Promise<number | undefined> => {
      const res = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=${encodeURIComponent(expr)}`);
      const body = (await res.json()) as PromVector;
      const value = body.data.result[0]?.value[1];
      return value === undefined ? undefined : Number(value);
    };
    const valueOf = (expr: string, expected: number) => until(async () => ((await query(expr)) === expected ? expected : undefined), 30_000, `${expr} == ${expected}\n${promOutput.slice(-2000)}`);

    expect(await valueOf('agentq_messages_sent_total{job="agentq"}', 3)).toBe(3);
    expect(await valueOf('agentq_messages_pending{job="agentq"}', 3)).toBe(3);
    expect(await valueOf('up{job="agentq"}', 1)).toBe(1);

    // A claim and an ack move the counters and the gauges the same way.
    const claimed = await call(receiver, "POST", "/v1/messages/get-pending", { max: 1 });
    const item = claimed.body.items[0];
    expect((await call(receiver, "POST", `/v1/messages/${item.envelope.message_id}/ack`, { lease_id: item.lease.lease_id })).status).toBe(200);
    expect(await valueOf('agentq_messages_acknowledged_total{job="agentq"}', 1)).toBe(1);
    expect(await valueOf('agentq_messages_claimed_total{job="agentq"}', 1)).toBe(1);
    expect(await valueOf('agentq_messages_pending{job="agentq"}', 2)).toBe(2);

    // A send an approval policy holds counts in its own gauge, not among the pending.
    const policy = await call(admin.token, "POST", "/v1/policies", { name: "hold-high", body: "A person approves these.", kind: "approval", priorities: ["high"] }, { "Idempotency-Key": "policy" });
    expect(policy.status).toBe(201);
    const heldSend = await call(sender, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "builder" }, template: "directive", priority: "high" }, payload: { directive_kind: "build", summary: "s", instructions: "i" } }, { "Idempotency-Key": "held" });
    expect(heldSend.body.state).toBe("held_for_approval");
    expect(await valueOf('agentq_messages_held_for_approval{job="agentq"}', 1)).toBe(1);
    expect(await valueOf('agentq_messages_pending{job="agentq"}', 2)).toBe(2);
  }, 120_000);
});

describe("metrics with several workers (AGENTQ_WORKERS)", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url, { METRICS_PORT: "0", METRICS_QUEUE_STATS_SECONDS: "1", AGENTQ_WORKERS: "2" });
    server = await spawnServer(env, 120_000);
  }, 150_000);
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill("SIGTERM");
    await server?.exited;
    await db?.drop();
  }, 60_000);

  /** One request on a connection of its own, so that node:cluster hands it to the next worker. */
  const post = (path: string, token: string, body: unknown) =>
    new Promise<{ status: number; body: Record<string, any> }>((resolve, reject) => {
      const url = new URL(`${server.baseUrl}${path}`);
      const text = JSON.stringify(body);
      const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent: false, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text), "Idempotency-Key": randomUUID() } }, (res) => {
        let data = "";
        res.on("data", (c: Buffer) => (data += c.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) as Record<string, any> }));
      });
      req.once("error", reject);
      req.end(text);
    });

  it("serves one /metrics from the primary, summing what every worker counted", async () => {
    const line = await until(async () => server.output().split("\n").find((l) => l.includes('"metrics listening"') && l.includes('"aggregated":"cluster"')), 60_000, "the primary's metrics line");
    const metricsPort = (JSON.parse(line) as { port: number }).port;
    // Both workers listen before the first request.
    await until(async () => (server.output().split("\n").filter((l) => l.includes('"agentq listening"')).length >= 2 ? true : undefined), 60_000, "two workers");
    const boot = await runServerCommand("src/bootstrap.ts", ["--workspace", "workers", "--email", "ops@workers.test", "--json"], env);
    const admin = (JSON.parse(boot.stdout) as { token: string }).token;
    const account = await post("/v1/ai-accounts", admin, { friendly_name: "builder" });
    const sender = (await post("/v1/credentials", admin, { ai_account_id: account.body.id, tier: "operational", scopes: ["send"], name: "s" })).body.token as string;
    for (let i = 0; i < 6; i++) expect((await post("/v1/messages/send", sender, { envelope: { recipient: { friendly_name: "builder" }, template: "note" }, payload: { text: `n${i}` } })).status).toBe(201);
    // The access log says which worker answered each send: both did.
    const pids = new Set(server.output().split("\n").filter((l) => l.includes('"route":"/v1/messages/send"')).map((l) => (JSON.parse(l) as { pid: number }).pid));
    expect(pids.size).toBe(2);
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toMatch(/^agentq_messages_sent_total 6$/m);
    expect(text).toMatch(/^agentq_http_request_duration_seconds_count\{method="POST",route="\/v1\/messages\/send",status="201"\} 6$/m);
    // The gauges come from the background worker alone (aggregated by max, not summed).
    const pending = await until(async () => {
      const t = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return /^agentq_messages_pending 6$/m.test(t) ? true : undefined;
    }, 15_000, "pending 6");
    expect(pending).toBe(true);
  }, 180_000);
});
