import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { createTestApp, TOKENS } from "../testing/test-app.ts";

const ECHO = "/v1/test/items/i1/echo";
const AUTH = { Authorization: `Bearer ${TOKENS.sender}` };

interface Envelope {
  error: { code: string };
  request_id: string;
}

async function expectError(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const body = (await res.json()) as Envelope;
  expect(body.error.code).toBe(code);
  expect(body.request_id).toBe(res.headers.get("x-request-id"));
}

function post(body: RequestInit["body"], headers: Record<string, string>): RequestInit {
  // duplex is required by undici for stream bodies and missing from the RequestInit type.
  const init: RequestInit & { duplex: "half" } = { method: "POST", headers: { ...AUTH, ...headers }, body, duplex: "half" };
  return init;
}

/** A body with no Content-Length, as a chunked upload would arrive. */
function streamOf(bytes: Uint8Array, chunkSize = 16384): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(offset, offset + chunkSize));
      offset += chunkSize;
    },
  });
}

const JSON_TYPE = { "Content-Type": "application/json" };
const small = Buffer.from(JSON.stringify({ note: "compressed" }));

describe("request bodies", () => {
  it("refuses a non-JSON Content-Type with 415", async () => {
    const { app } = createTestApp();
    await expectError(await app.request(ECHO, post('{"note":"x"}', { "Content-Type": "text/plain" })), 415, "SVC_UNSUPPORTED_CONTENT_TYPE");
    await expectError(await app.request(ECHO, post('{"note":"x"}', { "Content-Type": "application/json; charset=latin1" })), 415, "SVC_UNSUPPORTED_CONTENT_TYPE");
    await expectError(await app.request(ECHO, post(streamOf(Buffer.from('{"note":"x"}')), {})), 415, "SVC_UNSUPPORTED_CONTENT_TYPE");
  });

  it("accepts application/json with a charset", async () => {
    const { app } = createTestApp();
    const res = await app.request(ECHO, post('{"note":"x"}', { "Content-Type": "application/json; charset=UTF-8" }));
    expect(res.status).toBe(201);
  });

  it("refuses an unknown Content-Encoding with 415", async () => {
    const { app } = createTestApp();
    await expectError(await app.request(ECHO, post(gzipSync(small), { ...JSON_TYPE, "Content-Encoding": "compress" })), 415, "SVC_UNSUPPORTED_CONTENT_TYPE");
    await expectError(await app.request(ECHO, post(gzipSync(small), { ...JSON_TYPE, "Content-Encoding": "gzip, br" })), 415, "SVC_UNSUPPORTED_CONTENT_TYPE");
  });

  it("inflates gzip, deflate and br bodies", async () => {
    const { app } = createTestApp();
    for (const [encoding, bytes] of [["gzip", gzipSync(small)], ["deflate", deflateSync(small)], ["br", brotliCompressSync(small)]] as const) {
      const res = await app.request(ECHO, post(bytes, { ...JSON_TYPE, "Content-Encoding": encoding }));
      expect(res.status).toBe(201);
      expect(((await res.json()) as { input: unknown }).input).toEqual({ note: "compressed", item_id: "i1" });
    }
  });

  it("refuses 257 KB of plain JSON with 413, declared or streamed", async () => {
    const { app } = createTestApp();
    const big = Buffer.from(JSON.stringify({ note: "x".repeat(257 * 1024) }));
    await expectError(await app.request(ECHO, post(big, JSON_TYPE)), 413, "SVC_PAYLOAD_TOO_LARGE");
    await expectError(await app.request(ECHO, post(streamOf(big), JSON_TYPE)), 413, "SVC_PAYLOAD_TOO_LARGE");
  });

  it("accepts a body just under 256 KB", async () => {
    const { app } = createTestApp();
    const body = JSON.stringify({ note: "x".repeat(256 * 1024 - 20) });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(256 * 1024);
    expect((await app.request(ECHO, post(body, JSON_TYPE))).status).toBe(201);
  });

  it("refuses a gzip bomb (50 MB of zeros) with 413", async () => {
    const { app } = createTestApp();
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    await expectError(await app.request(ECHO, post(bomb, { ...JSON_TYPE, "Content-Encoding": "gzip" })), 413, "SVC_PAYLOAD_TOO_LARGE");
    await expectError(await app.request(ECHO, post(streamOf(bomb, 1024), { ...JSON_TYPE, "Content-Encoding": "gzip" })), 413, "SVC_PAYLOAD_TOO_LARGE");
  });

  it("refuses more than 1 MB compressed with 413, declared or streamed", async () => {
    const { app } = createTestApp();
    const member = gzipSync(Buffer.alloc(0));
    const body = Buffer.concat([gzipSync(small), ...Array.from({ length: Math.ceil((1024 * 1024) / member.byteLength) + 1 }, () => member)]);
    await expectError(await app.request(ECHO, post(body, { ...JSON_TYPE, "Content-Encoding": "gzip" })), 413, "SVC_PAYLOAD_TOO_LARGE");
    await expectError(await app.request(ECHO, post(streamOf(body), { ...JSON_TYPE, "Content-Encoding": "gzip" })), 413, "SVC_PAYLOAD_TOO_LARGE");
  });

  it("refuses JSON nested 65 deep with 400, and accepts 64", async () => {
    const { app } = createTestApp();
    const nested = (depth: number) => `{"nested":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
    await expectError(await app.request(ECHO, post(nested(65), JSON_TYPE)), 400, "SVC_MALFORMED_REQUEST");
    expect((await app.request(ECHO, post(nested(64), JSON_TYPE))).status).toBe(201);
  });

  it("checks depth before authentication", async () => {
    const { app } = createTestApp();
    const res = await app.request(ECHO, { method: "POST", headers: JSON_TYPE, body: "[".repeat(100_000) });
    await expectError(res, 400, "SVC_MALFORMED_REQUEST");
  });

  it("refuses invalid JSON, invalid UTF-8 and non-object bodies with 400", async () => {
    const { app } = createTestApp();
    for (const body of ['{"note":', "nul", "[]", '"text"', "42", "null", Buffer.from([0x7b, 0xff, 0x7d])]) {
      await expectError(await app.request(ECHO, post(body, JSON_TYPE)), 400, "SVC_MALFORMED_REQUEST");
    }
    await expectError(await app.request(ECHO, post(Buffer.from("not gzip"), { ...JSON_TYPE, "Content-Encoding": "gzip" })), 400, "SVC_MALFORMED_REQUEST");
  });

  it("treats an empty POST body as {} whatever the Content-Type", async () => {
    const { app } = createTestApp();
    for (const init of [post(null, {}), post("", JSON_TYPE), post(null, { "Content-Type": "text/plain" }), post(streamOf(new Uint8Array(0)), {}), post("", { ...JSON_TYPE, "Content-Length": "0" })]) {
      const res = await app.request(ECHO, init);
      expect(res.status).toBe(201);
      expect(((await res.json()) as { input: unknown }).input).toEqual({ item_id: "i1" });
    }
  });
});
