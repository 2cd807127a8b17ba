import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readRequestText, REQUEST_BODY_LIMITS } from "./read-body.ts";
import { readFormFields } from "./read-form-body.ts";
import type { BodyLimits } from "./read-body-bytes.ts";

const IDENTITY_ONLY: BodyLimits = { maxBytes: 1024, maxCompressedBytes: 1024, encodings: "identity" };

async function refusal(p: Promise<unknown>): Promise<{ code?: string; details?: unknown } | null> {
  try {
    await p;
    return null;
  } catch (e) {
    return e as { code?: string; details?: unknown };
  }
}

const post = (body: RequestInit["body"], headers: Record<string, string> = {}) => new Request("http://agentq.test/x", { method: "POST", body, headers });

describe("readRequestText: one body reader, its limits and encodings", () => {
  it("reads plain and (where accepted) compressed text; no body is empty", async () => {
    expect(await readRequestText(post("héllo"), null, IDENTITY_ONLY)).toBe("héllo");
    expect(await readRequestText(post(gzipSync(Buffer.from("zipped")), { "Content-Encoding": "gzip" }), null, REQUEST_BODY_LIMITS)).toBe("zipped");
    expect(await readRequestText(new Request("http://agentq.test/x"), null, IDENTITY_ONLY)).toBe("");
  });

  it("refuses an encoding where only identity is accepted (415, naming it), before reading", async () => {
    expect(await refusal(readRequestText(post(gzipSync(Buffer.from("x")), { "Content-Encoding": "gzip" }), null, IDENTITY_ONLY))).toMatchObject({ code: "SVC_UNSUPPORTED_CONTENT_TYPE", details: { content_encoding: "gzip" } });
    expect(await refusal(readRequestText(post("x", { "Content-Encoding": "zstd" }), null, REQUEST_BODY_LIMITS))).toMatchObject({ code: "SVC_UNSUPPORTED_CONTENT_TYPE" });
  });

  it("refuses past the limit from Content-Length or as the bytes arrive (413), and bytes that are not UTF-8 (400)", async () => {
    expect(await refusal(readRequestText(post("x", { "Content-Length": "1025" }), null, IDENTITY_ONLY))).toMatchObject({ code: "SVC_PAYLOAD_TOO_LARGE", details: { max_bytes: 1024 } });
    expect(await refusal(readRequestText(post("y".repeat(1025)), null, IDENTITY_ONLY))).toMatchObject({ code: "SVC_PAYLOAD_TOO_LARGE" });
    expect(await readRequestText(post("y".repeat(1024)), null, IDENTITY_ONLY)).toHaveLength(1024);
    expect(await refusal(readRequestText(post(new Uint8Array([0xff, 0xfe])), null, IDENTITY_ONLY))).toMatchObject({ code: "SVC_MALFORMED_REQUEST" });
  });
});

describe("readFormFields: a form post read with the limits of every body", () => {
  const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

  it("gives each field its values in order, from urlencoded and multipart bodies", async () => {
    const fields = await readFormFields(post("a=1&b=x%20y&a=2", FORM));
    expect([...fields]).toEqual([["a", ["1", "2"]], ["b", ["x y"]]]);
    const multipart = new FormData();
    multipart.append("name", "ada");
    multipart.append("file", new Blob(["ignored"]), "f.txt");
    const parsed = await readFormFields(new Request("http://agentq.test/x", { method: "POST", body: multipart }));
    expect([...parsed]).toEqual([["name", ["ada"]], ["file", []]]);
  });

  it("does not read a body of another type, and refuses a form over 256 KB (413)", async () => {
    expect((await readFormFields(post("a=1", { "Content-Type": "text/plain" }))).size).toBe(0);
    expect(await refusal(readFormFields(post(`a=${"x".repeat(256 * 1024)}`, FORM)))).toMatchObject({ code: "SVC_PAYLOAD_TOO_LARGE" });
    expect((await readFormFields(post(`a=${"x".repeat(256 * 1024 - 2)}`, FORM))).get("a")?.[0]).toHaveLength(256 * 1024 - 2);
  });

  it("refuses a multipart body that does not parse (400)", async () => {
    expect(await refusal(readFormFields(post("not multipart at all", { "Content-Type": "multipart/form-data; boundary=zzz" })))).toMatchObject({ code: "SVC_MALFORMED_REQUEST" });
  });
});
