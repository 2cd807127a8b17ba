import { bootstrapWorkspace } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { listenHttp } from "@agentq/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";

// The timeouts of an idle kept-alive connection (65 s) are keep-alive-timeouts.process.test.ts's.
// Node's built-in fetch keeps connections alive. A request refused before its body was read to
// the end (413 on a chunked upload past the limit, 415 on a declared non-JSON type, 400 on a
// corrupt gzip stream) must answer `Connection: close`: the server closes that socket, so a
// client that reused it would fail its next request ("fetch failed", UND_ERR_SOCKET).
describe("keep-alive connections after early refusals (REST and MCP over a real socket)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let baseUrl = "";
  let close: () => Promise<void> = async () => undefined;
  let token = "";

  beforeAll(async () => {
    db = await createTestSchema({ max: 3 });
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: "http://127.0.0.1", logger: createLogger("silent"), rateLimiter: "off" });
    token = (await bootstrapWorkspace(service.deps, { workspaceName: "kept-alive", email: "owner@kept-alive.test" })).token;
    const listener = await listenHttp((request, env) => service.fetch(request, env), { hostname: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${listener.address.port}`;
    close = listener.close;
  });
  afterAll(async () => {
    await close();
    await service.close();
    await db.drop();
  });

  // A chunked body (no Content-Length) of `chunks` pieces of 64 KiB.
  const chunkedBody = (chunks: number, piece: Uint8Array = new Uint8Array(64 * 1024).fill(0x20)): ReadableStream<Uint8Array> => {
    let sent = 0;
    return new ReadableStream({
      pull(controller) {
        if (sent++ < chunks) controller.enqueue(piece);
        else controller.close();
      },
    });
  };
  const upload = (path: string, headers: Record<string, string>, body: ReadableStream<Uint8Array>) =>
    fetch(`${baseUrl}${path}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, ...headers }, body, duplex: "half" });

  const refusals: { name: string; send: () => Promise<Response>; status: number; code: string }[] = [
    { name: "REST 413 (chunked, past 256 KB)", send: () => upload("/v1/ai-accounts", { "Content-Type": "application/json" }, chunkedBody(12)), status: 413, code: "SVC_PAYLOAD_TOO_LARGE" },
    { name: "REST 415 (declared text/plain)", send: () => upload("/v1/ai-accounts", { "Content-Type": "text/plain" }, chunkedBody(6)), status: 415, code: "SVC_UNSUPPORTED_CONTENT_TYPE" },
    { name: "REST 400 (corrupt gzip)", send: () => upload("/v1/ai-accounts", { "Content-Type": "application/json", "Content-Encoding": "gzip" }, chunkedBody(6)), status: 400, code: "SVC_MALFORMED_REQUEST" },
    { name: "MCP 413 (chunked, past 256 KB)", send: () => upload("/mcp", { "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, chunkedBody(12)), status: 413, code: "SVC_PAYLOAD_TOO_LARGE" },
    { name: "MCP 415 (gzip body)", send: () => upload("/mcp", { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Content-Encoding": "gzip" }, chunkedBody(6)), status: 415, code: "SVC_UNSUPPORTED_CONTENT_TYPE" },
  ];

  for (const refusal of refusals) {
    it(`${refusal.name}: answers with Connection: close`, async () => {
      const res = await refusal.send();
      expect(res.status).toBe(refusal.status);
      expect(res.headers.get("connection")).toBe("close");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(refusal.code);
    });
  }

  it("keeps every later request on the keep-alive agent working: 200 requests after the refusals, none fails", async () => {
    const failures: string[] = [];
    let served = 0;
    for (let round = 0; round < 5; round++) {
      for (const refusal of refusals) {
        const res = await refusal.send();
        expect(res.status).toBe(refusal.status);
        await res.arrayBuffer();
        // Node's HTTP server layer drains a refused body for 500 ms and then closes the socket:
        // the next request goes out around that moment, when a reused socket would die under it.
        await new Promise((r) => setTimeout(r, 420 + round * 40));
        await probe();
      }
      for (let i = 0; i < 35; i++) await probe();
    }
    expect(failures).toEqual([]);
    expect(served).toBe(200);

    async function probe(): Promise<void> {
      try {
          const res = await fetch(`${baseUrl}/v1/ai-accounts?limit=1`, { headers: { Authorization: `Bearer ${token}` } });
          expect(res.status).toBe(200);
          await res.arrayBuffer();
          served++;
        } catch (error) {
          failures.push(String((error as { cause?: { code?: string } }).cause?.code ?? error));
        }
    }
  });

  it("keeps the connection alive when the body was read to its end, refused or not", async () => {
    const small = await fetch(`${baseUrl}/v1/ai-accounts`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: "{not json" });
    expect(small.status).toBe(400);
    expect(small.headers.get("connection")).not.toBe("close");
    await small.arrayBuffer();
  });
});
