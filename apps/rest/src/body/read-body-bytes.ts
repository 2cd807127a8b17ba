import { DomainError, isDomainError, malformed } from "@agentq/core";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Transform } from "node:stream";
import type { BodyEncoding } from "./content-encoding.ts";

/** Byte limits of one body read. */
export interface BodyLimits {
  /** Most bytes accepted after decompression (the whole body when not encoded). */
  maxBytes: number;
  /** Most bytes accepted on the wire when the body is encoded. */
  maxCompressedBytes: number;
}

/**
 * Reads a request body stream into memory, decompressing it as a stream when encoded. Both
 * limits are enforced while the bytes flow: the read stops (and the inflater is destroyed) as
 * soon as either is passed, so a decompression bomb is never inflated beyond the limit plus one
 * inflater chunk.
 * @throws DomainError SVC_PAYLOAD_TOO_LARGE past a limit; SVC_MALFORMED_REQUEST when the
 *   compressed data is corrupt or the stream fails.
 */
export async function readBodyBytes(body: ReadableStream<Uint8Array> | null, encoding: BodyEncoding, limits: BodyLimits): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const wireLimit = encoding === "identity" ? limits.maxBytes : limits.maxCompressedBytes;
  const reader = body.getReader();
  // Cancelling ends a read that waits on a stalled client, so a refusal is answered at once
  // instead of when (if ever) the client sends its next chunk.
  const stopReading = (): void => {
    reader.cancel().catch(() => undefined);
  };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const collect = async (source: AsyncIterable<Uint8Array>): Promise<void> => {
    try {
      for await (const chunk of source) {
        size += chunk.byteLength;
        if (size > limits.maxBytes) throw tooLarge(limits);
        chunks.push(chunk);
      }
    } catch (err) {
      stopReading();
      throw err;
    }
  };
  try {
    if (encoding === "identity") {
      await collect(limitedChunks(reader, wireLimit, limits));
    } else {
      const inflater = createInflater(encoding);
      inflater.once("error", stopReading);
      await pipeline(limitedChunks(reader, wireLimit, limits), inflater, collect);
    }
  } catch (err) {
    if (isDomainError(err)) throw err;
    throw malformed("The request body could not be read or decompressed.", { content_encoding: encoding });
  } finally {
    reader.releaseLock();
  }
  return concat(chunks, size);
}

// Yields the reader's chunks, failing once more than `limit` bytes have arrived. Cancels the
// stream when it stops early, so no more bytes are pulled.
async function* limitedChunks(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number, limits: BodyLimits): AsyncGenerator<Uint8Array> {
  let received = 0;
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        return;
      }
      received += value.byteLength;
      if (received > limit) throw tooLarge(limits);
      yield value;
    }
  } finally {
    if (!finished) await reader.cancel().catch(() => undefined);
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

function tooLarge(limits: BodyLimits): DomainError {
  return new DomainError("SVC_PAYLOAD_TOO_LARGE", "The request body is too large.", { max_bytes: limits.maxBytes, max_compressed_bytes: limits.maxCompressedBytes });
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
