import { brotliCompressSync, constants, deflateSync, gzipSync } from "node:zlib";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { readBodyBytes } from "./read-body-bytes.ts";

const LIMITS = { maxBytes: 256 * 1024, maxCompressedBytes: 1024 * 1024 };

/** A pull stream over `bytes` in `chunkSize` pieces that records how far it was read. */
function meteredStream(bytes: Uint8Array, chunkSize: number): { stream: ReadableStream<Uint8Array>; pulled: () => number } {
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.byteLength) {
        controller.close();
        return;
      }
      const chunk = bytes.slice(offset, offset + chunkSize);
      offset += chunk.byteLength;
      controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 });
  return { stream, pulled: () => offset };
}

async function codeOf(p: Promise<unknown>): Promise<string | null> {
  try {
    await p;
    return null;
  } catch (e) {
    return (e as { code?: string }).code ?? "not a DomainError";
  }
}

describe("readBodyBytes", () => {
  const text = new TextEncoder().encode(JSON.stringify({ hello: "world".repeat(100) }));

  it("reads plain, gzip, deflate and br bodies", async () => {
    expect(await readBodyBytes(meteredStream(text, 7).stream, "identity", LIMITS)).toEqual(text);
    expect(await readBodyBytes(meteredStream(gzipSync(text), 7).stream, "gzip", LIMITS)).toEqual(text);
    expect(await readBodyBytes(meteredStream(deflateSync(text), 7).stream, "deflate", LIMITS)).toEqual(text);
    expect(await readBodyBytes(meteredStream(brotliCompressSync(text), 7).stream, "br", LIMITS)).toEqual(text);
    expect(await readBodyBytes(null, "gzip", LIMITS)).toEqual(new Uint8Array(0));
  });

  it("accepts exactly the limit and refuses one byte more", async () => {
    const exact = new Uint8Array(LIMITS.maxBytes);
    expect((await readBodyBytes(meteredStream(exact, 65536).stream, "identity", LIMITS)).byteLength).toBe(LIMITS.maxBytes);
    expect((await readBodyBytes(meteredStream(gzipSync(exact), 1024).stream, "gzip", LIMITS)).byteLength).toBe(LIMITS.maxBytes);
    const over = new Uint8Array(LIMITS.maxBytes + 1);
    expect(await codeOf(readBodyBytes(meteredStream(over, 65536).stream, "identity", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
    expect(await codeOf(readBodyBytes(meteredStream(gzipSync(over), 1024).stream, "gzip", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
  });

  it("stops a gzip bomb early: most of the compressed stream is never even read", async () => {
    // Twenty gzip members of 50 MB of zeros each: about 1 MB that would inflate to 1 GB.
    const member = gzipSync(new Uint8Array(50 * 1024 * 1024));
    const bomb = Buffer.concat(Array.from({ length: 20 }, () => member));
    const metered = meteredStream(bomb, 1024);
    expect(await codeOf(readBodyBytes(metered.stream, "gzip", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
    // 256 KB of zeros is a few hundred bytes of deflate; only the inflater's input buffer more was read.
    expect(metered.pulled()).toBeLessThan(bomb.byteLength / 10);
  });

  it("stops a brotli bomb early as well", async () => {
    const bomb = brotliCompressSync(new Uint8Array(50 * 1024 * 1024), { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    expect(await codeOf(readBodyBytes(meteredStream(bomb, 64).stream, "br", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
  });

  it("answers at once when the client stalls after sending too much or corrupt data", async () => {
    // A client that sends part of its body and then neither sends more nor closes.
    const stalled = (bytes: Uint8Array) => new ReadableStream<Uint8Array>({ start(controller) { controller.enqueue(bytes); } });
    const bomb = gzipSync(new Uint8Array(10 * 1024 * 1024));
    expect(await codeOf(readBodyBytes(stalled(bomb), "gzip", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
    expect(await codeOf(readBodyBytes(stalled(text), "gzip", LIMITS))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(readBodyBytes(stalled(new Uint8Array(LIMITS.maxBytes + 1)), "identity", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
  }, 5_000);

  it("refuses more than 1 MB of compressed bytes even when they inflate to nothing", async () => {
    // Concatenated empty gzip members: valid gzip, zero output bytes, any compressed size.
    const member = gzipSync(new Uint8Array(0));
    const members = Buffer.concat(Array.from({ length: Math.ceil((LIMITS.maxCompressedBytes + 1) / member.byteLength) }, () => member));
    expect(await codeOf(readBodyBytes(meteredStream(members.subarray(0, 100 * member.byteLength), 4096).stream, "gzip", LIMITS))).toBeNull();
    expect(await codeOf(readBodyBytes(meteredStream(members, 4096).stream, "gzip", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
  });

  it("answers corrupt or truncated compressed data with SVC_MALFORMED_REQUEST", async () => {
    expect(await codeOf(readBodyBytes(meteredStream(text, 64).stream, "gzip", LIMITS))).toBe("SVC_MALFORMED_REQUEST");
    const gz = gzipSync(text);
    expect(await codeOf(readBodyBytes(meteredStream(gz.subarray(0, gz.byteLength - 10), 64).stream, "gzip", LIMITS))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(readBodyBytes(meteredStream(text, 64).stream, "br", LIMITS))).toBe("SVC_MALFORMED_REQUEST");
  });

  it("reads Node's IncomingMessage directly (node-server's bindings) with the same limits, leaving it undestroyed when it stops early", async () => {
    const chunksOf = (bytes: Uint8Array, size: number) => Array.from({ length: Math.ceil(bytes.byteLength / size) }, (_, i) => bytes.slice(i * size, (i + 1) * size));
    expect(await readBodyBytes(Readable.from(chunksOf(text, 7)), "identity", LIMITS)).toEqual(text);
    expect(await readBodyBytes(Readable.from(chunksOf(gzipSync(text), 7)), "gzip", LIMITS)).toEqual(text);
    const big = Readable.from(chunksOf(new Uint8Array(LIMITS.maxBytes + 1), 64 * 1024));
    expect(await codeOf(readBodyBytes(big, "identity", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
    expect(big.destroyed).toBe(false);
    const bomb = Readable.from(chunksOf(gzipSync(new Uint8Array(50 * 1024 * 1024)), 16 * 1024));
    expect(await codeOf(readBodyBytes(bomb, "gzip", LIMITS))).toBe("SVC_PAYLOAD_TOO_LARGE");
    expect(await codeOf(readBodyBytes(Readable.from([new Uint8Array([1, 2, 3])]), "gzip", LIMITS))).toBe("SVC_MALFORMED_REQUEST");
  });
});
