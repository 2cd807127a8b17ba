import { subscribeToInbox, type InboxSubscriber } from "@agentq/mcp/testing";
import { testDatabaseUrl } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { bootstrapWorkspace, serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// Issue 28, push: two real server processes over one database. A subscription to agentq://inbox
// lives on one; sends, claims and releases happen on the other; the notification crosses between
// them through PostgreSQL (LISTEN/NOTIFY for what a write makes claimable at once, the timed look
// for a lease running out). Tenant isolation: nothing of another workspace is ever heard.
describe("push across server processes: a subscription on one, the send on the other", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let sending: SpawnedServer;
  let subscribed: SpawnedServer;
  const tokens: Record<string, string> = {};
  const subscribers: InboxSubscriber[] = [];

  /** A workspace with an AI account `sender` (scope send) and one named `worker` (claiming scopes), through REST on the sending process. */
  async function workspace(name: string): Promise<{ sender: string; worker: string }> {
    const boot = await bootstrapWorkspace(env, { workspace: name, email: `ops@${name}.test` });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${sending.baseUrl}${path}`, { method: "POST", headers: { Authorization: `Bearer ${boot.token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
      expect(res.status, path).toBe(201);
      return (await res.json()) as { id: string; token: string };
    };
    const sender = await post("/v1/ai-accounts", { friendly_name: "sender" });
    const worker = await post("/v1/ai-accounts", { friendly_name: "worker" });
    return {
      sender: (await post("/v1/credentials", { ai_account_id: sender.id, tier: "operational", scopes: ["send"], name: "sender" })).token,
      worker: (await post("/v1/credentials", { ai_account_id: worker.id, tier: "operational", scopes: ["get_pending", "ack", "nack"], name: "worker" })).token,
    };
  }

  /** REST on the sending process. */
  async function rest(token: string, path: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await fetch(`${sending.baseUrl}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() }, body: JSON.stringify(body) });
    expect(res.status, `${path}: ${res.status}`).toBeLessThan(300);
    return (await res.json()) as Record<string, unknown>;
  }

  const send = (token: string) => rest(token, "/v1/messages/send", { envelope: { recipient: { friendly_name: "worker" }, template: "directive" }, payload: { directive_kind: "task", summary: "s", instructions: "i" } });

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url);
    sending = await spawnServer(env, 90_000);
    subscribed = await spawnServer(env, 90_000);
    const a = await workspace("push-a");
    const b = await workspace("push-b");
    Object.assign(tokens, { senderA: a.sender, workerA: a.worker, senderB: b.sender, workerB: b.worker });
  }, 240_000);

  afterAll(async () => {
    await Promise.all(subscribers.map((s) => s.close().catch(() => undefined)));
    for (const server of [sending, subscribed]) if (server !== undefined && server.child.exitCode === null) server.child.kill("SIGTERM");
    await Promise.all([sending?.exited, subscribed?.exited]);
    await db?.drop();
  });

  it("notifies the subscriber on one process of a send made through REST on the other", async () => {
    const sub = await subscribeToInbox(subscribed.baseUrl, `Bearer ${tokens["workerA"]}`);
    subscribers.push(sub);
    const sentAt = Date.now();
    await send(tokens["senderA"] as string);
    await sub.waitForUpdate(0);
    expect(Date.now() - sentAt).toBeLessThan(5_000);
    const inbox = JSON.parse(((await sub.client.readResource({ uri: "agentq://inbox" })).contents[0] as { text: string }).text) as { claimable: { normal: number } };
    expect(inbox.claimable.normal).toBe(1);
  }, 30_000);

  it("never tells a subscriber of workspace A about sends to workspace B's account of the same name", async () => {
    const subA = await subscribeToInbox(subscribed.baseUrl, `Bearer ${tokens["workerA"]}`);
    const subB = await subscribeToInbox(subscribed.baseUrl, `Bearer ${tokens["workerB"]}`);
    subscribers.push(subA, subB);
    for (let i = 0; i < 3; i++) await send(tokens["senderB"] as string);
    // B's subscriber hears its sends: the notifications did flow while A's heard nothing.
    await subB.waitForUpdate(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(subA.updates()).toBe(0);
  }, 30_000);

  it("notifies when a lease taken on the other process runs out (the timed look, no NOTIFY)", async () => {
    const sub = await subscribeToInbox(subscribed.baseUrl, `Bearer ${tokens["workerB"]}`);
    subscribers.push(sub);
    // Claim everything waiting for worker B under a 10 s lease, on the sending process.
    const claimed = await rest(tokens["workerB"] as string, "/v1/messages/get-pending", { max: 100, visibility_timeout: "PT10S" });
    expect((claimed["items"] as unknown[]).length).toBeGreaterThan(0);
    const claimedAt = Date.now();
    await new Promise((r) => setTimeout(r, 500));
    const before = sub.updates();
    await sub.waitForUpdate(before, 20_000);
    // Not before the lease ran out, and within the look's 2 s of it.
    const elapsed = Date.now() - claimedAt;
    expect(elapsed).toBeGreaterThanOrEqual(9_000);
    expect(elapsed).toBeLessThan(14_000);
  }, 40_000);

  it("ends its sessions' streams when it stops, so SIGTERM drains at once and the process exits 0", async () => {
    const sub = await subscribeToInbox(subscribed.baseUrl, `Bearer ${tokens["workerA"]}`);
    subscribers.push(sub);
    const stoppedAt = Date.now();
    subscribed.child.kill("SIGTERM");
    const exit = await subscribed.exited;
    expect(exit.code, subscribed.output().slice(-2000)).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  }, 30_000);
});
