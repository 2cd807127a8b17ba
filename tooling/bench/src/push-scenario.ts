import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { BenchContext } from "./context.ts";
import { apiClient } from "./http-client.ts";
import { delay } from "./load.ts";
import { sendOne } from "./rest-scenarios.ts";
import { summarise } from "./stats.ts";

/** One subscriber of S3 push: an SDK client in a session, subscribed to its inbox, and when each notification arrived. */
interface Subscriber {
  client: Client;
  transport: StreamableHTTPClientTransport;
  notifiedAt: number[];
}

/** Connects the SDK client as `token`, waits for its session's GET stream, and subscribes to agentq://inbox. */
async function subscribe(baseUrl: string, token: string): Promise<Subscriber> {
  let streamOpen: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => (streamOpen = resolve));
  const watchedFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === "GET" && response.ok) streamOpen();
    return response;
  };
  const client = new Client({ name: "agentq-bench-push", version: "0.1.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } }, fetch: watchedFetch });
  const notifiedAt: number[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => void notifiedAt.push(performance.now()));
  await client.connect(transport);
  await Promise.race([opened, delay(10_000).then(() => Promise.reject(new Error("S3 push: the session's GET stream did not open within 10 s")))]);
  await client.subscribeResource({ uri: "agentq://inbox" });
  return { client, transport, notifiedAt };
}

/** Whether the server offers push (resources/subscribe in its MCP capabilities); a server from before it (`--server-dir`) does not. */
export async function hasPush(ctx: BenchContext): Promise<boolean> {
  const client = new Client({ name: "agentq-bench-probe", version: "0.1.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${ctx.server.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${ctx.fixture.account("wake0").token}` } } });
  await client.connect(transport);
  try {
    return client.getServerCapabilities()?.resources?.subscribe === true;
  } finally {
    await client.close();
  }
}

/**
 * S3 push, beside S3's long-poll wake-up: 4 MCP sessions (the SDK client over Streamable HTTP),
 * each subscribed to the inbox of its own recipient (wake0..wake3); one producer sends to them in
 * turn through REST, `wakeGapMs` apart (each recipient every 4 x wakeGapMs, above the sessions'
 * 100 ms notification gap, so each send gets its own notification); latency from the send's
 * response to the `notifications/resources/updated` on the recipient's stream. The i-th
 * notification of a recipient answers its i-th send (a notification arriving before the send's
 * response counts 0, as S3's claims do).
 */
export async function runPush(ctx: BenchContext): Promise<void> {
  const recipients = ["wake0", "wake1", "wake2", "wake3"];
  const subscribers = await Promise.all(recipients.map((r) => subscribe(ctx.server.baseUrl, ctx.fixture.account(r).token)));
  const client = apiClient(ctx.server.baseUrl, 2);
  const sentAt: number[][] = recipients.map(() => []);
  ctx.log(`S3 push: 4 sessions subscribed to agentq://inbox, ${ctx.sizes.wakeSends} sends ${ctx.sizes.wakeGapMs} ms apart`);
  try {
    const token = ctx.fixture.sender.token;
    for (let i = 0; i < ctx.sizes.wakeSends; i++) {
      const k = i % recipients.length;
      await sendOne(client, token, recipients[k] as string, "s3p");
      sentAt[k]?.push(performance.now());
      await delay(ctx.sizes.wakeGapMs);
    }
    const waitUntil = performance.now() + 10_000;
    const heard = () => subscribers.reduce((n, s) => n + s.notifiedAt.length, 0);
    while (heard() < ctx.sizes.wakeSends && performance.now() < waitUntil) await delay(50);
  } finally {
    await client.close();
    await Promise.all(subscribers.map(async (s) => {
      await s.transport.terminateSession().catch(() => undefined);
      await s.client.close();
    }));
  }
  const latencies: number[] = [];
  let unmatched = 0;
  subscribers.forEach((s, k) => {
    const sends = sentAt[k] ?? [];
    sends.forEach((at, i) => {
      const notified = s.notifiedAt[i];
      if (notified === undefined) unmatched += 1;
      else latencies.push(Math.max(0, notified - at));
    });
    if (s.notifiedAt.length > sends.length) ctx.notes.push(`S3 push: ${recipients[k]} got ${s.notifiedAt.length} notifications for ${sends.length} sends.`);
  });
  if (unmatched > 0) ctx.notes.push(`S3 push: ${unmatched} of ${ctx.sizes.wakeSends} sends were not notified within 10 s of the last send.`);
  const push = summarise(latencies);
  ctx.m.set("S3.push.p50", push.p50);
  ctx.m.set("S3.push.p99", push.p99);
  ctx.log(`  push p50 ${push.p50.toFixed(2)} ms, p99 ${push.p99.toFixed(2)} ms (send response to notifications/resources/updated)`);
}
