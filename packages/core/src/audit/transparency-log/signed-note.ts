import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { NativeCrypto } from "../../encoding/native-crypto.ts";
import { base64Decode, base64Encode } from "../../encoding/base64.ts";

/**
 * Signed notes (C2SP signed-note; golang.org/x/mod/sumdb/note): a text ending in a newline, a
 * blank line, then one line per signature, `— <key name> <base64(key hash || signature)>`. The
 * one algorithm is Ed25519 (signature type 0x01); a key is named by its key name and the 32-bit
 * key hash SHA-256(name || "\n" || 0x01 || public key)[:4], and published as the verifier key
 * `<name>+<key hash, 8 hex digits>+<base64(0x01 || public key)>`.
 */

/** The signature type byte of Ed25519 in signed notes. */
const ED25519 = 0x01;

/** At most this many signature lines are read from a note (as sumdb/note). */
const MAX_SIGNATURES = 100;

const SIGNATURE_PREFIX = "\u2014 ";

/** Go's `unicode.IsSpace`: a key name contains none of these. */
const UNICODE_SPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/** A lone UTF-16 surrogate: text that has no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A key that signs notes. */
export interface NoteSigner {
  /** The key name, e.g. `queue.example.com/agentq`. */
  readonly name: string;
  /** The 32-bit key hash that identifies the key beside its name. */
  readonly keyHash: number;
  /** The verifier key string that checks this signer's signatures. */
  readonly verifierKey: string;
  /** Signs the bytes of a note's text. */
  sign(message: Uint8Array): Uint8Array;
}

/** A key that checks notes' signatures. */
export interface NoteVerifier {
  readonly name: string;
  readonly keyHash: number;
  /** True when `signature` is this key's signature of `message`. */
  verify(message: Uint8Array, signature: Uint8Array): boolean;
}

/** True when `name` may name a key: non-empty, without Unicode spaces or `+` (sumdb/note's `isValidName`). */
export function isValidKeyName(name: string): boolean {
  return name !== "" && !UNICODE_SPACE.test(name) && !name.includes("+") && !LONE_SURROGATE.test(name);
}

/** The key hash of an encoded public key (type byte followed by the key) under `name`. */
export function noteKeyHash(name: string, encodedKey: Uint8Array): number {
  const nameBytes = utf8ToBytes(`${name}\n`);
  const buf = new Uint8Array(nameBytes.length + encodedKey.length);
  buf.set(nameBytes, 0);
  buf.set(encodedKey, nameBytes.length);
  const sum = sha256(buf);
  return (((sum[0] as number) << 24) >>> 0) + ((sum[1] as number) << 16) + ((sum[2] as number) << 8) + (sum[3] as number);
}

/** Go's `strings.Cut`: the text before the first `sep` and after it ("" after when absent). */
function cut(text: string, sep: string): [string, string] {
  const i = text.indexOf(sep);
  return i < 0 ? [text, ""] : [text.slice(0, i), text.slice(i + sep.length)];
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, "0");
}

/** The verifier key string of an Ed25519 public key under `name` (sumdb/note's `NewEd25519VerifierKey`). */
export function ed25519VerifierKey(name: string, publicKey: Uint8Array): string {
  const encoded = new Uint8Array([ED25519, ...publicKey]);
  return `${name}+${hex8(noteKeyHash(name, encoded))}+${base64Encode(encoded)}`;
}

/**
 * The Ed25519 signer of the 32-byte `seed` under `name`.
 * @throws Error when the name is not a valid key name or the seed is not 32 bytes.
 */
export function ed25519NoteSigner(name: string, seed: Uint8Array, native?: Pick<NativeCrypto, "ed25519Sign">): NoteSigner {
  if (!isValidKeyName(name)) throw new Error("invalid key name");
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  const publicKey = ed25519.getPublicKey(seed);
  const secret = Uint8Array.from(seed);
  return {
    name,
    keyHash: noteKeyHash(name, new Uint8Array([ED25519, ...publicKey])),
    verifierKey: ed25519VerifierKey(name, publicKey),
    sign: native === undefined ? (message) => ed25519.sign(message, secret) : (message) => native.ed25519Sign(secret, message),
  };
}

/** The verifier of a verifier key string, or null when it is not one (sumdb/note's `NewVerifier`). */
export function parseVerifierKey(verifierKey: string): NoteVerifier | null {
  const [name, afterName] = cut(verifierKey, "+");
  const [hash16, key64] = cut(afterName, "+");
  const key = base64Decode(key64);
  if (!/^[0-9a-fA-F]{8}$/.test(hash16) || key === null || key.length === 0 || !isValidKeyName(name)) return null;
  const keyHash = Number.parseInt(hash16, 16);
  if (keyHash !== noteKeyHash(name, key)) return null;
  if (key[0] !== ED25519 || key.length !== 33) return null;
  const publicKey = key.slice(1);
  return {
    name,
    keyHash,
    verify: (message, signature) => {
      try {
        return ed25519.verify(signature, message, publicKey, { zip215: false });
      } catch {
        return false;
      }
    },
  };
}

/**
 * Signs `text` (which must end in a newline) with every signer: the note, its blank line and one
 * signature line per signer.
 * @throws Error when the text does not end in a newline.
 */
export function signNote(text: string, signers: readonly NoteSigner[]): string {
  if (!text.endsWith("\n")) throw new Error("a note's text ends in a newline");
  const message = utf8ToBytes(text);
  const lines = signers.map((s) => {
    const sig = s.sign(message);
    const out = new Uint8Array(4 + sig.length);
    new DataView(out.buffer).setUint32(0, s.keyHash);
    out.set(sig, 4);
    return `${SIGNATURE_PREFIX}${s.name} ${base64Encode(out)}\n`;
  });
  return `${text}\n${lines.join("")}`;
}

/** A signature line of a note: the key's name and hash. */
export interface NoteSignature {
  name: string;
  keyHash: number;
}

/** What `openNote` found. */
export type OpenedNote =
  /** At least one known key signed it, and every signature by a known key verifies. */
  | { kind: "verified"; text: string; signatures: NoteSignature[]; unverified: NoteSignature[] }
  /** Not a signed note (no blank line before the signatures, a bad signature line, control characters). */
  | { kind: "malformed" }
  /** Well formed, but signed by no known key. */
  | { kind: "unverified"; text: string; unverified: NoteSignature[] }
  /** A known key's signature does not verify. */
  | { kind: "invalid_signature"; signature: NoteSignature };

/**
 * Opens a signed note, checking the signatures of the known keys (sumdb/note's `Open`):
 * signatures of unknown keys are listed, not checked; a known key's repeated signature counts
 * once; two known keys with one name and hash make the note unverifiable.
 */
export function openNote(note: string, known: readonly NoteVerifier[]): OpenedNote {
  for (let i = 0; i < note.length; i++) {
    const c = note.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a) return { kind: "malformed" };
  }
  if (LONE_SURROGATE.test(note)) return { kind: "malformed" };
  const split = note.lastIndexOf("\n\n");
  if (split < 0) return { kind: "malformed" };
  const text = note.slice(0, split + 1);
  let sigs = note.slice(split + 2);
  if (sigs === "" || !sigs.endsWith("\n")) return { kind: "malformed" };
  const message = utf8ToBytes(text);
  const signatures: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  const seen = new Set<string>();
  const seenUnverified = new Set<string>();
  let count = 0;
  while (sigs.length > 0) {
    const nl = sigs.indexOf("\n");
    const line = sigs.slice(0, nl);
    sigs = sigs.slice(nl + 1);
    if (!line.startsWith(SIGNATURE_PREFIX)) return { kind: "malformed" };
    const body = line.slice(SIGNATURE_PREFIX.length);
    const space = body.indexOf(" ");
    const name = space < 0 ? body : body.slice(0, space);
    const b64 = space < 0 ? "" : body.slice(space + 1);
    const raw = base64Decode(b64);
    if (raw === null || !isValidKeyName(name) || b64 === "" || raw.length < 5) return { kind: "malformed" };
    const keyHash = new DataView(raw.buffer, raw.byteOffset).getUint32(0);
    if (++count > MAX_SIGNATURES) return { kind: "malformed" };
    const matches = known.filter((v) => v.name === name && v.keyHash === keyHash);
    const id = `${name}+${hex8(keyHash)}`;
    if (matches.length === 0) {
      if (!seenUnverified.has(body)) unverified.push({ name, keyHash });
      seenUnverified.add(body);
      continue;
    }
    if (matches.length > 1) return { kind: "invalid_signature", signature: { name, keyHash } };
    if (seen.has(id)) continue;
    seen.add(id);
    if (!(matches[0] as NoteVerifier).verify(message, raw.slice(4))) return { kind: "invalid_signature", signature: { name, keyHash } };
    signatures.push({ name, keyHash });
  }
  return signatures.length === 0 ? { kind: "unverified", text, unverified } : { kind: "verified", text, signatures, unverified };
}
