import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { toBase64 } from "./base64.ts";
import type { SigningKey } from "./webhook.ts";

/** Prefix of a signing secret as shown to users (Standard Webhooks). */
export const SIGNING_SECRET_PREFIX = "whsec_";

/** A new random seal of a signing key (256 bits, base64). */
export function newSigningSeal(): string {
  return toBase64(randomBytes(32));
}

/**
 * The 32-byte HMAC key behind `seal`: HMAC-SHA-256(pepper, "agentq-webhook-signing-key-v1:" +
 * seal). Only the seal is stored; without the server pepper (from SVC_SECRET_KEY) a leaked table
 * cannot sign. The domain prefix keeps these HMACs apart from token hashes and token seals.
 */
export function signingKeyFromSeal(pepper: Uint8Array, seal: string): Uint8Array {
  return hmac(sha256, pepper, utf8ToBytes(`agentq-webhook-signing-key-v1:${seal}`));
}

/** The secret as disclosed once to the user: `whsec_` + base64(key), what `new Webhook(secret)` of `standardwebhooks` takes. */
export function signingSecretFromSeal(pepper: Uint8Array, seal: string): string {
  return SIGNING_SECRET_PREFIX + toBase64(signingKeyFromSeal(pepper, seal));
}

/** The headers of one signed delivery (Standard Webhooks). */
export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/**
 * Signs `body` per Standard Webhooks: each key signs `${id}.${timestamp}.${body}` with
 * HMAC-SHA-256, giving `v1,<base64>`; the signatures of every key given are joined by spaces
 * (the current key and the keys still in their rotation overlap), so a receiver holding either
 * secret verifies. `timestampSeconds` is the attempt time in Unix seconds.
 */
export function signDelivery(p: { pepper: Uint8Array; keys: readonly SigningKey[]; id: string; timestampSeconds: number; body: string }): SignedHeaders {
  const content = utf8ToBytes(`${p.id}.${p.timestampSeconds}.${p.body}`);
  const signatures = p.keys.map((k) => `v1,${toBase64(hmac(sha256, signingKeyFromSeal(p.pepper, k.seal), content))}`);
  return { "webhook-id": p.id, "webhook-timestamp": String(p.timestampSeconds), "webhook-signature": signatures.join(" ") };
}

/** The keys that sign at `now`: the current one and those whose overlap has not ended. */
export function signingKeysAt(keys: readonly SigningKey[], now: Date): SigningKey[] {
  return keys.filter((k) => k.expiresAt === null || k.expiresAt.getTime() > now.getTime());
}
