/** Padded standard base64 (RFC 4648 §4) of `bytes`: the encoding of hashes, keys and signatures in notes and proofs. */
export function base64Encode(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The bytes of padded standard base64 text, or null when it is not that (wrong alphabet, missing
 * padding, whitespace). Unused bits of the last character are ignored, as Go's
 * `base64.StdEncoding` ignores them, so both verifiers read the same bytes.
 */
export function base64Decode(text: string): Uint8Array | null {
  if (!STANDARD_BASE64.test(text)) return null;
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
