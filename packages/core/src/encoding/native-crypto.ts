/** Native implementations of the core's cryptography (`ServerSecrets.native`: optional; the core's @noble code gives the same bytes without it). */
export interface NativeCrypto {
  /** The Ed25519 signature of `message` by the key of the 32-byte `seed` (RFC 8032). */
  ed25519Sign(seed: Uint8Array, message: Uint8Array): Uint8Array;
  /** HMAC-SHA-256 of the UTF-8 bytes of `text` under `key`, in lower-case hex. */
  hmacSha256Hex(key: Uint8Array, text: string): string;
}

