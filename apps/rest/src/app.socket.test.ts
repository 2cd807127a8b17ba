import { listenHttp } from "@agentq/http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, TOKENS } from "./testing/test-app.ts";

describe("the REST app over a real socket", () => {
  let baseUrl = "";
  let close: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const { app } = createTestApp();
    const listener = await listenHttp(app.fetch, { hostname: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${listener.address.port}`;
    close = listener.close;
  });
  afterAll(() => close());

  it("serves conventions, gzip bodies and limits through node's HTTP server", async () => {
    const version = await fetch(`${baseUrl}/v1/version`);
    expect(version.status).toBe(200);
    expect(version.headers.get("x-request-id")).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);

    const missing = await fetch(`${baseUrl}/v1/missing`);
    const missingBody = (await missing.json()) as { error: { code: string }; request_id: string };
    expect(missing.status).toBe(404);
    expect(missingBody.error.code).toBe("SVC_ROUTE_NOT_FOUND");
    expect(missingBody.request_id).toBe(missing.headers.get("x-request-id"));
    expect(missing.headers.get("cache-control")).toBe("no-store");

    const headers = { Authorization: `Bearer ${TOKENS.sender}`, "Content-Type": "application/json", "Content-Encoding": "gzip" };
    const echo = await fetch(`${baseUrl}/v1/test/items/i9/echo`, { method: "POST", headers, body: gzipSync(JSON.stringify({ note: "over the wire" })) });
    expect(echo.status).toBe(201);
    expect(((await echo.json()) as { input: unknown }).input).toEqual({ note: "over the wire", item_id: "i9" });

    const bomb = await fetch(`${baseUrl}/v1/test/items/i9/echo`, { method: "POST", headers, body: gzipSync(Buffer.alloc(50 * 1024 * 1024)) });
    expect(bomb.status).toBe(413);
    expect(((await bomb.json()) as { error: { code: string } }).error.code).toBe("SVC_PAYLOAD_TOO_LARGE");

    const text = await fetch(`${baseUrl}/v1/test/items/i9/echo`, { method: "POST", headers: { Authorization: `Bearer ${TOKENS.sender}`, "Content-Type": "text/plain" }, body: "hello" });
    expect(text.status).toBe(415);
    expect(((await text.json()) as { error: { code: string } }).error.code).toBe("SVC_UNSUPPORTED_CONTENT_TYPE");
  });
});
