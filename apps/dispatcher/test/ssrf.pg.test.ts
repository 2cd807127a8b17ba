import type { WebhookRecord } from "@agentq/core";
import { makeWebhook } from "@agentq/core/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpWebhookTransport, type HostResolver } from "@agentq/runtime";
import { startTestDispatcher } from "./dispatcher-harness.ts";
import { WebhookReceiver } from "./webhook-receiver.ts";
import { createWebhookWorld } from "./webhook-world.ts";

// Names this test resolves itself (tests send traffic only to 127.0.0.1; nothing here is ever contacted).
const FAKE_DNS: Record<string, LookupAddress[]> = {
  "rebind.agentq.test": [{ address: "127.0.0.1", family: 4 }],
  "private.agentq.test": [{ address: "10.1.2.3", family: 4 }],
  "metadata.agentq.test": [{ address: "169.254.169.254", family: 4 }],
  "mapped.agentq.test": [{ address: "::ffff:127.0.0.1", family: 6 }],
  // One public and one loopback address: refused, because every address must be public.
  "mixed.agentq.test": [{ address: "93.184.216.34", family: 4 }, { address: "127.0.0.1", family: 4 }],
};
const resolve: HostResolver = async (hostname) => FAKE_DNS[hostname] ?? lookup(hostname, { all: true, verbatim: true });
/** The production transport (no loopback allowance), with the test's resolver. */
const strict = createHttpWebhookTransport({ resolve });
const permissive = createHttpWebhookTransport({ allowLoopbackForTests: true, resolve });

let db: TestSchema;
let rx: WebhookReceiver;

beforeAll(async () => {
  db = await createTestSchema();
  rx = await new WebhookReceiver(() => ({ status: 204 })).start();
});
afterAll(async () => {
  await rx.stop();
  await db.drop();
});

/** Every class the guard refuses, each as a destination URL (those that could reach this host point at the receiver's port). */
function matrix(port: number): [string, string][] {
  return [
    ["loopback", `http://127.0.0.1:${port}/hook`],
    ["loopback (other 127/8)", `http://127.1.2.3:${port}/hook`],
    ["loopback (integer form)", `http://2130706433:${port}/hook`],
    ["loopback (hex form)", `http://0x7f.1:${port}/hook`],
    ["loopback IPv6", `http://[::1]:${port}/hook`],
    ["IPv4-mapped IPv6 loopback", `http://[::ffff:127.0.0.1]:${port}/hook`],
    ["unspecified", `http://0.0.0.0:${port}/hook`],
    ["unspecified IPv6", `http://[::]:${port}/hook`],
    ["private 10/8", "http://10.0.0.1/hook"],
    ["private 172.16/12", "http://172.16.0.1/hook"],
    ["private 192.168/16", "http://192.168.1.1/hook"],
    ["unique local IPv6", "http://[fd12:3456::1]/hook"],
    ["link-local", "http://169.254.10.10/hook"],
    ["link-local IPv6", "http://[fe80::1]/hook"],
    ["CGNAT", "http://100.64.0.1/hook"],
    ["multicast", "http://224.0.0.1/hook"],
    ["multicast IPv6", "http://[ff02::1]/hook"],
    ["metadata", "http://169.254.169.254/latest/meta-data/"],
    ["metadata IPv6", "http://[fd00:ec2::254]/latest/meta-data/"],
    ["IPv4-mapped IPv6 metadata", "http://[::ffff:169.254.169.254]/latest/meta-data/"],
    ["broadcast", "http://255.255.255.255/hook"],
    ["documentation", "http://192.0.2.1/hook"],
    ["hostname resolving to loopback (system resolver)", `http://localhost:${port}/hook`],
    ["hostname resolving to loopback", `http://rebind.agentq.test:${port}/hook`],
    ["hostname resolving to a private address", "http://private.agentq.test/hook"],
    ["hostname resolving to the metadata address", "http://metadata.agentq.test/hook"],
    ["hostname resolving to IPv4-mapped loopback", `http://mapped.agentq.test:${port}/hook`],
    ["hostname resolving to a public and a loopback address", `http://mixed.agentq.test:${port}/hook`],
  ];
}

describe("SSRF guard", () => {
  it("refuses every non-public class at create time: 400 SVC_MALFORMED_REQUEST, verification_failure_reason destination_not_public, nothing contacted", async () => {
    const world = await createWebhookWorld(db.sql, strict);
    const before = rx.requests.length;
    for (const [cls, url] of matrix(rx.port)) {
      const outcome = await world.call(world.admin, "create_webhook", { ai_account_id: world.recipientId, url, name: cls }).then(
        () => ({ code: "created" }),
        (e: { code: string; details?: Record<string, unknown> }) => ({ code: e.code, reason: e.details?.verification_failure_reason }),
      );
      expect({ cls, ...outcome }).toEqual({ cls, code: "SVC_MALFORMED_REQUEST", reason: "destination_not_public" });
    }
    expect(rx.requests.length).toBe(before);
    expect((await world.call<{ items: unknown[] }>(world.admin, "list_webhooks")).body.items).toHaveLength(0);
  });

  it("the same transport with the test-only loopback allowance reaches the receiver (the refusals above are the guard, not a dead port)", async () => {
    const world = await createWebhookWorld(db.sql, permissive);
    const created = await world.call(world.admin, "create_webhook", { ai_account_id: world.recipientId, url: `http://rebind.agentq.test:${rx.port}/hook`, name: "loopback ok in tests" });
    expect(created.status).toBe(201);
    const refused = await world.call(world.admin, "create_webhook", { ai_account_id: world.recipientId, url: "http://10.0.0.1/hook", name: "private still refused" }).catch((e: { details?: Record<string, unknown> }) => e.details?.verification_failure_reason);
    expect(refused).toBe("destination_not_public");
  });

  it("refuses every non-public class at delivery time: each delivery fails destination_not_public without contacting anything", async () => {
    const world = await createWebhookWorld(db.sql, permissive);
    // A webhook that passed its probe while loopback was allowed, then delivered by the production transport.
    const probed = await world.call<{ webhook: { id: string } }>(world.admin, "create_webhook", { ai_account_id: world.recipientId, url: rx.url, name: "probed", max_attempts: 1 });
    // Stored directly (as if their destinations had changed behind a passed probe), one per class.
    const owner = { workspace: { id: world.workspaceId }, recipient: { id: world.recipientId } } as Parameters<typeof makeWebhook>[0];
    const hooks: WebhookRecord[] = [];
    for (const [cls, url] of matrix(rx.port)) {
      const hook = makeWebhook(owner, { url, name: cls, maxAttempts: 1, createdAt: new Date(), updatedAt: new Date() });
      await world.deps.stores.webhooks.insert({ webhook: hook });
      hooks.push(hook);
    }
    const before = rx.requests.length;
    const messageId = await world.send();
    const dispatcher = startTestDispatcher(world.deps, strict);
    try {
      const expected = hooks.length + 1;
      await dispatcher.until(() => dispatcher.exhausted.filter((d) => d.messageId === messageId).length === expected);
      const dead = dispatcher.exhausted.filter((d) => d.messageId === messageId);
      const byWebhook = new Map(dead.map((d) => [d.webhookId, d.lastError]));
      for (const h of hooks) expect({ cls: h.name, error: byWebhook.get(h.id) }).toEqual({ cls: h.name, error: "destination_not_public" });
      expect(byWebhook.get(probed.body.webhook.id)).toBe("destination_not_public");
      expect(rx.requests.length).toBe(before);
    } finally {
      await dispatcher.stop();
    }
  });
});
