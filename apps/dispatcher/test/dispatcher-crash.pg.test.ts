import type { DeliveryView } from "@agentq/core";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpWebhookTransport } from "@agentq/runtime";
import { WebhookReceiver } from "./webhook-receiver.ts";
import { createWebhookWorld, TEST_MASTER_SECRET } from "./webhook-world.ts";

const CHILD = fileURLToPath(new URL("./dispatcher-child.ts", import.meta.url));
const APP_DIR = fileURLToPath(new URL("..", import.meta.url));
const LEASE_MS = 1_500;

let db: TestSchema;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await db.drop();
});

/** Spawns a dispatcher process on the test schema (node itself, so SIGKILL reaches the dispatcher, not a wrapper). */
function spawnDispatcher(): { child: ChildProcess; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; output: () => string } {
  const url = new URL(db.url);
  url.searchParams.set("search_path", db.schema);
  const child = spawn(process.execPath, ["--import", "tsx", CHILD], {
    cwd: APP_DIR,
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      SVC_SECRET_KEY: TEST_MASTER_SECRET,
      AGENTQ_WEBHOOK_POLL_MS: "20",
      AGENTQ_WEBHOOK_LEASE_MS: String(LEASE_MS),
      AGENTQ_WEBHOOK_TIMEOUT_MS: "30000",
      AGENTQ_WEBHOOK_RETRY_BASE_MS: "50",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  return { child, exited, output: () => out };
}

describe("a dispatcher killed with SIGKILL mid-delivery", () => {
  it("loses no delivery: a restarted dispatcher delivers every row after the dead one's lease runs out", async () => {
    let phase: "hold" | "answer" = "hold";
    const rx = await new WebhookReceiver((r) => (r.event.type !== "message.sent" ? { status: 204 } : phase === "hold" ? "hang" : { status: 200 })).start();
    try {
      const world = await createWebhookWorld(db.sql, createHttpWebhookTransport({ allowLoopbackForTests: true }));
      const created = await world.call<{ webhook: { id: string }; signing_secret: string }>(world.admin, "create_webhook", { ai_account_id: world.recipientId, url: rx.url, name: "crash" });
      const sent: string[] = [];
      for (let i = 0; i < 5; i++) sent.push(await world.send({ correlationId: `m-${i}` }));

      // The first dispatcher claims all five and is stuck in their POSTs when it is killed.
      const first = spawnDispatcher();
      await rx.waitFor((rs) => new Set(rs.filter((r) => r.event.type === "message.sent").map((r) => r.headers["webhook-id"])).size === 5);
      first.child.kill("SIGKILL");
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      const list = async () => (await world.call<{ items: DeliveryView[] }>(world.admin, "list_webhook_deliveries", { webhook_id: created.body.webhook.id })).body.items;
      const stranded = await list();
      expect(stranded.map((d) => d.state)).toEqual(["pending", "pending", "pending", "pending", "pending"]);
      expect(stranded.every((d) => d.attempts === 0)).toBe(true);

      // The second dispatcher takes them over once the first one's lease has run out.
      phase = "answer";
      const second = spawnDispatcher();
      try {
        await rx.waitFor((rs) => new Set(rs.filter((r) => r.event.type === "message.sent" && r.attempt === 2).map((r) => r.headers["webhook-id"])).size === 5);
        let rows = await list();
        while (!rows.every((d) => d.state === "delivered")) {
          await rx.waitFor(() => true);
          rows = await list();
        }
        expect(rows.map((d) => d.message_id).sort()).toEqual([...sent].sort());
        for (const d of rows) expect(d).toMatchObject({ state: "delivered", attempts: 1, last_status: 200 });
        const deliveries = rx.requests.filter((r) => r.event.type === "message.sent");
        for (const r of deliveries) expect(() => new Webhook(created.body.signing_secret).verify(r.body, r.headers)).not.toThrow();
        // The same delivery id and body on the attempt before and after the crash (receivers dedupe on webhook-id).
        for (const d of rows) expect(new Set(rx.byId(d.id).map((r) => r.body)).size).toBe(1);
      } finally {
        second.child.kill("SIGTERM");
        const ended = await second.exited;
        expect(ended.code === 0 || ended.signal === "SIGTERM" ? "stopped" : second.output()).toBe("stopped");
      }
    } finally {
      await rx.stop();
    }
  });
});
