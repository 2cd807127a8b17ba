import { malformed } from "../../errors.ts";
import { isUlid } from "../../ids.ts";

/** Limits shared by every session-state record (SESSION-STATE §1). */
export const SESSION_STATE_LIMITS = {
  titleMax: 200,
  markdownMax: 16 * 1024,
  tagsMax: 20,
  slugMax: 64,
  projectNameMax: 100,
  projectDescriptionMax: 2_000,
  attributesMax: 50,
  attributeValueMax: 200,
  filesMax: 50,
  fileMax: 500,
  listItemMax: 500,
  alternativesMax: 20,
} as const;

/** Tags and labels. */
export const TAG_PATTERN = /^[a-z0-9][a-z0-9._-]{0,39}$/;
/** Project slugs. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Project attribute keys. */
export const ATTRIBUTE_KEY_PATTERN = /^[a-z][a-z0-9_.-]{0,63}$/;

/**
 * A title: trimmed, 1-200 characters.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function checkTitle(value: string, field = "title", max: number = SESSION_STATE_LIMITS.titleMax): string {
  const t = value.trim();
  if (t.length === 0 || t.length > max) throw malformed(`${field} must be 1 to ${max} characters.`, { field });
  return t;
}

/**
 * A markdown field: up to 16 KB of UTF-8 (or `max` bytes).
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function checkMarkdown(value: string | undefined, field: string, opts: { required?: boolean; maxBytes?: number } = {}): string {
  const v = value ?? "";
  const max = opts.maxBytes ?? SESSION_STATE_LIMITS.markdownMax;
  if (opts.required === true && v.trim().length === 0) throw malformed(`${field} must not be empty.`, { field });
  if (new TextEncoder().encode(v).length > max) throw malformed(`${field} must be at most ${max} bytes.`, { field, max_bytes: max });
  return v;
}

/**
 * Tags or labels: at most 20, each `^[a-z0-9][a-z0-9._-]{0,39}$`; duplicates dropped, order kept.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function checkTags(values: readonly string[] | undefined, field = "tags"): string[] {
  const list = [...new Set(values ?? [])];
  if (list.length > SESSION_STATE_LIMITS.tagsMax) throw malformed(`${field} holds at most ${SESSION_STATE_LIMITS.tagsMax} entries.`, { field });
  for (const t of list) if (!TAG_PATTERN.test(t)) throw malformed(`${field} entries must match ${TAG_PATTERN.source}.`, { field, value: t });
  return list;
}

/**
 * A list of short strings (files, pros, cons, next steps): at most `maxItems`, each 1 to `maxLength` characters.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function checkStringList(values: readonly string[] | undefined, field: string, maxItems: number, maxLength: number = SESSION_STATE_LIMITS.listItemMax): string[] {
  const list = values ?? [];
  if (list.length > maxItems) throw malformed(`${field} holds at most ${maxItems} entries.`, { field });
  for (const v of list) if (v.trim().length === 0 || v.length > maxLength) throw malformed(`${field} entries must be 1 to ${maxLength} characters.`, { field });
  return [...list];
}

/**
 * A file path or glob of a decision: relative POSIX, no `..` segment, no leading `/`.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function checkFiles(values: readonly string[] | undefined, field = "files"): string[] {
  const list = checkStringList(values, field, SESSION_STATE_LIMITS.filesMax, SESSION_STATE_LIMITS.fileMax);
  for (const f of list) if (f.startsWith("/") || f.includes("\\") || f.split("/").includes("..")) throw malformed(`${field} entries must be relative POSIX paths or globs without '..'.`, { field, value: f });
  return [...new Set(list)];
}

/**
 * A ULID naming a record, or a 404 when it is not one (an id that cannot exist names nothing).
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function checkUlidField(value: string, field: string): string {
  if (!isUlid(value)) throw malformed(`${field} must be a ULID.`, { field });
  return value;
}

/**
 * An optional ISO 8601 timestamp (query or body).
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function parseTimestamp(value: string | undefined, field: string): Date | null {
  if (value === undefined || value === "") return null;
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime())) throw malformed(`${field} must be an ISO 8601 timestamp.`, { field });
  return at;
}

/**
 * An optional boolean query value: true/false (strings from a query, booleans from MCP or a body).
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function parseBooleanFlag(value: boolean | string | undefined, field: string): boolean | null {
  if (value === undefined || value === "") return null;
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  throw malformed(`${field} must be true or false.`, { field });
}

/**
 * One value of a fixed set, or null when absent.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function parseEnum<T extends string>(value: string | undefined, allowed: readonly T[], field: string): T | null {
  if (value === undefined || value === "") return null;
  if (!(allowed as readonly string[]).includes(value)) throw malformed(`${field} must be one of ${allowed.join(", ")}.`, { field });
  return value as T;
}
