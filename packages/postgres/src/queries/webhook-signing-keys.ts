// The `signing_keys` JSON array of a webhook row, read by the webhook and outbox queries alike.
import type { SigningKey } from "../core-types.ts";

/** A signing key as stored in the `signing_keys` JSON array. */
export interface StoredSigningKey {
  id: string;
  seal: string;
  createdAt: string;
  expiresAt: string | null;
}

/** Signing keys in their stored JSON form. */
export function storedKeys(keys: readonly SigningKey[]): StoredSigningKey[] {
  return keys.map((k) => ({ id: k.id, seal: k.seal, createdAt: k.createdAt.toISOString(), expiresAt: k.expiresAt === null ? null : k.expiresAt.toISOString() }));
}

/** Signing keys from their stored JSON form. */
export function toSigningKeys(keys: readonly StoredSigningKey[]): SigningKey[] {
  return keys.map((k) => ({ id: k.id, seal: k.seal, createdAt: new Date(k.createdAt), expiresAt: k.expiresAt === null ? null : new Date(k.expiresAt) }));
}
