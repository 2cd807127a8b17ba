import { DomainError, isDomainError, malformed } from "@agentq/core";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Transform } from "node:stream";
import type { BodyEncoding } from "./content-encoding.ts";

/** Byte limits of one body read, and the encodings it accepts. */
export interface BodyLimits {
  /** Most bytes accepted after decompression (the whole body when not encoded). */
  maxBytes: number;
  /** Most bytes accepted on the wire when the body is encoded. */
  maxCompressedBytes: number;
  /**
   * `compressed` (default): identity, gzip, deflate or br (REST, the dashboard's forms);
   * `identity`: no Content-Encoding at all (MCP and OAuth, whose clients never compress).
   */
  encodings?: "compressed" | "identity";
}

/**
 * A request body: the web stream of a `Request`, or, under @hono/node-server, Node's own
 * IncomingMessage, read directly (asking a node-server request for its web body builds a whole
 * `Request` and a web stream over the socket per call: about 8 % of the server's CPU in the
 * send benchmark's profile).
 */
export type BodyStream = ReadableStream<Uint8Array> | NodeBody;

/**
 * Node's IncomingMessage, as far as reading a body needs it. A read that stops early leaves it
 * undestroyed, as node-server's own web body does: once the response is sent, node-server
 * drains what is left (bounded in bytes and time), so the keep-alive connection survives a 413.
 */
export interface NodeBody {
  iterator(options: { destroyOnReturn: boolean }): AsyncIterator<Uint8Array>;
}

/**
 * Reads a request body stream into memory, decompressing it as a stream when encoded. Both
 * limits are enforced while the bytes flow: the read stops (and the inflater is destroyed) as
 * soon as either is passed, so a decompression bomb is never inflated beyond the limit plus one
 * inflater chunk.
 * @throws DomainError SVC_PAYLOAD_TOO_LARGE past a limit; SVC_MALFORMED_REQUEST when the
 *   compressed data is corrupt or the stream fails.
 */
export async function readBodyBytes(body: BodyStream | null, encoding: BodyEncoding, limits: BodyLimits): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const source = bodySource(body);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const collect = async (from: AsyncIterable<Uint8Array>): Promise<void> => {
    try {
      for await (const chunk of from) {
        size += chunk.byteLength;
        if (size > limits.maxBytes) throw tooLarge(limits);
        chunks.push(chunk);
      }
    } catch (err) {
      source.stop();
      throw err;
    }
  };
  try {
    if (encoding === "identity") {
      // Plain bytes straight from the source, no generator between (the wire limit is the limit after decoding too).
      await collect({ [Symbol.asyncIterator]: () => ({ next: () => source.next() }) });
    } else {
      const inflater = createInflater(encoding);
      inflater.once("error", source.stop);
      await pipeline(limitedChunks(source, limits.maxCompressedBytes, limits), inflater, collect);
    }
  } catch (err) {
    if (isDomainError(err)) throw err;
    throw malformed("The request body could not be read or decompressed.", { content_encoding: encoding });
  } finally {
    source.release();
  }
  return concat(chunks, size);
}

/** A body's chunks, and how to stop it early (cancelling ends a read that waits on a stalled client, so a refusal is answered at once). */
interface BodySource {
  next(): Promise<IteratorResult<Uint8Array>>;
  stop: () => void;
  release(): void;
}

function bodySource(body: BodyStream): BodySource {
  if (body instanceof ReadableStream) {
    const reader = body.getReader();
    return {
      next: () => reader.read() as Promise<IteratorResult<Uint8Array>>,
      stop: () => void reader.cancel().catch(() => undefined),
      release: () => reader.releaseLock(),
    };
  }
  const iterator = body.iterator({ destroyOnReturn: false });
  // Ending the iterator detaches it from the stream without destroying it, so what is left of a
  // refused body can still be drained (closeAfterUnreadBody) and the answer reach the client.
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    void iterator.return?.().catch(() => undefined);
  };
  return { next: () => iterator.next(), stop: end, release: end };
}

// Yields the source's chunks, failing once more than `limit` bytes have arrived. Stops the
// source when it ends early, so no more bytes are pulled.
async function* limitedChunks(source: BodySource, limit: number, limits: BodyLimits): AsyncGenerator<Uint8Array> {
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const step = await source.next();
      if (step.done === true) {
        finished = true;
        return;
      }
      const value = step.value;
      received += value.byteLength;
      if (received > limit) throw tooLarge(limits);
      yield value;
    }
  } finally {
    if (!finished) source.stop();
  }
}

function createInflater(encoding: Exclude<BodyEncoding, "identity">): Transform {
  switch (encoding) {
    case "gzip":
      return createGunzip();
    case "deflate":
      return createInflate();
    case "br":
      return createBrotliDecompress();
  }
}

/** The refusal of a body past `limits` (413), naming the limits that apply to it. */
export function tooLarge(limits: BodyLimits): DomainError {
  const details = limits.encodings === "identity" ? { max_bytes: limits.maxBytes } : { max_bytes: limits.maxBytes, max_compressed_bytes: limits.maxCompressedBytes };
  return new DomainError("SVC_PAYLOAD_TOO_LARGE", "The request body is too large.", details);
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
