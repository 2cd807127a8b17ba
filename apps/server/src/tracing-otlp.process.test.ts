import { testDatabaseUrl } from "@agentq/postgres/testing";
import { connectMcpClient, structured } from "@agentq/mcp/testing";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { runServerCommand, serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// Issue 29, traces: the real server process with OTEL_EXPORTER_OTLP_ENDPOINT exports its spans
// over OTLP/HTTP (JSON, the protobuf JSON mapping) to a receiver inside this test. One trace per
// message links the sender's `send` span to the consumer's `receive` spans (the first claim and
// the redelivery after a nack) and `settle` spans (the nack, then the ack), over REST (the
// traceparent header) and over MCP (params._meta.traceparent); every claimed envelope carries
// the send span's traceparent.

type Json = Record<string, any>;

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

/** OTLP JSON ids are hex (the OTLP/HTTP JSON mapping); base64 from other encoders is turned into hex. */
function hexId(id: unknown): string {
  if (typeof id !== "string" || id === "") return "";
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, "base64").toString("hex");
}

function attributeValue(v: Json): unknown {
  return v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
}

/** A minimal OTLP/HTTP trace receiver (what a collector's otlphttp receiver accepts on /v1/traces, JSON encoding). */
function startOtlpReceiver(): Promise<{ url: string; spans: ReceivedSpan[]; close(): Promise<void> }> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      if (req.url !== "/v1/traces" || !(req.headers["content-type"] ?? "").includes("application/json")) {
        res.writeHead(415).end();
        return;
      }
      const request = JSON.parse(body) as Json;
      for (const rs of request.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: hexId(s.traceId),
              spanId: hexId(s.spanId),
              parentSpanId: hexId(s.parentSpanId),
              name: s.name,
              kind: s.kind,
              attributes: Object.fromEntries((s.attributes ?? []).map((a: Json) => [a.key, attributeValue(a.value)])),
            });
          }
        }
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}`, spans, close: () => new Promise<void>((r) => server.close(() => r())) });
    }),
  );
}

async function until<T>(read: () => T | undefined, timeoutMs: number, what: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const SPAN_KIND = { SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;

describe("OpenTelemetry traces over OTLP/HTTP", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let admin: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_SERVICE_NAME: "agentq-test" });
    server = await spawnServer(env);
    const boot = await runServerCommand("src/bootstrap.ts", ["--workspace", "traces", "--email", "ops@traces.test", "--json"], env);
    expect(boot.code).toBe(0);
    admin = (JSON.parse(boot.stdout) as { token: string }).token;
  }, 120_000);
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill("SIGTERM");
    await server?.exited;
    await receiver?.close();
    await db?.drop();
  }, 60_000);

  const rest = async (token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const account = async (name: string) => {
    const a = await rest(admin, "POST", "/v1/ai-accounts", { friendly_name: name });
    const issued = await rest(admin, "POST", "/v1/credentials", { ai_account_id: a.body.id, tier: "operational", scopes: ["send", "get_pending", "ack", "nack"], name });
    return issued.body.token as string;
  };

  /** The trace's spans once the send, both receives and both settles have arrived. */
  const traceOf = (traceId: string, recipient: string) =>
    until(
      () => {
        const spans = receiver.spans.filter((s) => s.traceId === traceId);
        const send = spans.find((s) => s.name === `send ${recipient}`);
        const receives = spans.filter((s) => s.name === `receive ${recipient}`);
        const settles = spans.filter((s) => s.name === `nack ${recipient}` || s.name === `ack ${recipient}`);
        return send !== undefined && receives.length === 2 && settles.length === 2 ? { spans, send, receives, settles } : undefined;
      },
      15_000,
      () => JSON.stringify(receiver.spans.map((s) => [s.traceId.slice(0, 6), s.name, s.spanId.slice(0, 6), s.parentSpanId.slice(0, 6)])),
    );

  it("links the sender's send span to the consumer's receive and settle spans across a nack and a redelivery, over REST", async () => {
    const sender = await account("rest-sender");
    const consumer = await account("rest-consumer");
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const callerSpan = "00f067aa0ba902b7";
    const sent = await rest(sender, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "rest-consumer" }, template: "note" }, payload: { text: "hi" } }, { traceparent: `00-${traceId}-${callerSpan}-01`, "Idempotency-Key": "rest-send-1" });
    expect(sent.status).toBe(201);
    const first = await rest(consumer, "POST", "/v1/messages/get-pending", { max: 1 });
    const item = first.body.items[0];
    expect(item.envelope.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect((await rest(consumer, "POST", `/v1/messages/${item.envelope.message_id}/nack`, { lease_id: item.lease.lease_id })).status).toBe(200);
    const again = await rest(consumer, "POST", "/v1/messages/get-pending", { max: 1 });
    const redelivered = again.body.items[0];
    // The redelivery hands on the same trace context.
    expect(redelivered.envelope.traceparent).toBe(item.envelope.traceparent);
    expect((await rest(consumer, "POST", `/v1/messages/${redelivered.envelope.message_id}/ack`, { lease_id: redelivered.lease.lease_id })).status).toBe(200);

    const { spans, send, receives, settles } = await traceOf(traceId, "rest-consumer");
    // The send span is the one stored with the message, under the request's HTTP span, under the caller's span.
    expect(item.envelope.traceparent).toBe(`00-${traceId}-${send.spanId}-01`);
    expect(send.kind).toBe(SPAN_KIND.PRODUCER);
    expect(send.attributes).toMatchObject({ "messaging.system": "agentq", "messaging.operation.type": "send", "messaging.message.id": sent.body.message_id });
    const http = spans.find((s) => s.spanId === send.parentSpanId);
    expect(http).toMatchObject({ kind: SPAN_KIND.SERVER, parentSpanId: callerSpan, name: "POST /v1/messages/send" });
    for (const r of receives) expect(r).toMatchObject({ parentSpanId: send.spanId, kind: SPAN_KIND.CONSUMER, attributes: { "messaging.operation.type": "receive", "messaging.message.id": sent.body.message_id } });
    expect(settles.map((s) => s.name).sort()).toEqual(["ack rest-consumer", "nack rest-consumer"]);
    for (const s of settles) expect(s).toMatchObject({ parentSpanId: send.spanId, attributes: { "messaging.operation.type": "settle" } });
  }, 60_000);

  it("traces every request, the dashboard's and OAuth's too, as a SERVER span under the request's traceparent", async () => {
    const traceId = "5af7651916cd43dd8448eb211c80319d";
    const parent = "c7ad6b7169203331";
    const headers = { traceparent: `00-${traceId}-${parent}-01` };
    await fetch(`${server.baseUrl}/sign-in`, { headers });
    await fetch(`${server.baseUrl}/.well-known/oauth-authorization-server`, { headers });
    const spans = await until(
      () => {
        const mine = receiver.spans.filter((s) => s.traceId === traceId);
        return mine.length >= 2 ? mine : undefined;
      },
      15_000,
      () => JSON.stringify(receiver.spans.map((s) => [s.traceId.slice(0, 6), s.name])),
    );
    for (const s of spans) expect(s).toMatchObject({ kind: SPAN_KIND.SERVER, parentSpanId: parent, attributes: { "http.request.method": "GET" } });
    expect(spans.map((s) => s.attributes["url.path"]).sort()).toEqual(["/.well-known/oauth-authorization-server", "/sign-in"]);
  }, 60_000);

  it("does the same over MCP, the trace context in params._meta.traceparent", async () => {
    const sender = await account("mcp-sender");
    const consumer = await account("mcp-consumer");
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const s = await connectMcpClient(server.baseUrl, `Bearer ${sender}`);
    const c = await connectMcpClient(server.baseUrl, `Bearer ${consumer}`);
    try {
      const sent = structured(await s.callTool({ name: "send", arguments: { envelope: { recipient: { friendly_name: "mcp-consumer" }, template: "note" }, payload: { text: "hi" } }, _meta: { traceparent: `00-${traceId}-b7ad6b7169203331-01` } }));
      expect(typeof sent.message_id).toBe("string");
      const first = structured(await c.callTool({ name: "get_pending", arguments: { max: 1 } })) as Json;
      const item = first.items[0];
      expect(item.envelope.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
      expect((await c.callTool({ name: "nack", arguments: { message_id: item.envelope.message_id, lease_id: item.lease.lease_id } })).isError).toBeFalsy();
      const redelivered = (structured(await c.callTool({ name: "get_pending", arguments: { max: 1 } })) as Json).items[0];
      expect(redelivered.envelope.traceparent).toBe(item.envelope.traceparent);
      expect((await c.callTool({ name: "ack", arguments: { message_id: redelivered.envelope.message_id, lease_id: redelivered.lease.lease_id } })).isError).toBeFalsy();

      const { send, receives, settles } = await traceOf(traceId, "mcp-consumer");
      // The call's _meta names the send span's parent.
      expect(send.parentSpanId).toBe("b7ad6b7169203331");
      expect(item.envelope.traceparent).toBe(`00-${traceId}-${send.spanId}-01`);
      for (const r of [...receives, ...settles]) expect(r.parentSpanId).toBe(send.spanId);
    } finally {
      await s.close();
      await c.close();
    }
  }, 60_000);
});
