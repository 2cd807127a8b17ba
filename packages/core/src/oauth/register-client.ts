import { OPERATIONAL_SCOPES } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { OAuthError } from "../errors.ts";
import type { OAuthClient } from "./model.ts";
import { checkRedirectUri, MAX_REDIRECT_URIS, type RedirectUriRefusal } from "./redirect-uris.ts";

/** The grant types a client may register (DESIGN §2b). */
export const SUPPORTED_GRANT_TYPES = ["authorization_code", "refresh_token"] as const;
const MAX_TEXT = 200;
const MAX_URI = 2000;

/** A client just registered, and what the 201 says about it. */
export interface RegisteredClient {
  client: OAuthClient;
  /** The RFC 7591 §3.2.1 response body. */
  response: Record<string, unknown>;
}

/** Printable text without control characters, trimmed and cut to `max`; null when nothing is left. */
function cleanText(value: unknown, max: number): string | null {
  if (typeof value !== "string") return null;
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u001f\u007f-\u009f]/g, "").trim().slice(0, max);
  return text === "" ? null : text;
}

/** An http(s) URL of at most MAX_URI characters (client_uri, logo_uri, tos_uri, policy_uri), else null. */
function webUrl(value: unknown): string | null {
  if (typeof value !== "string" || value.length > MAX_URI) return null;
  try {
    return ["https:", "http:"].includes(new URL(value).protocol) ? value : null;
  } catch {
    return null;
  }
}

/** The requested grant types this server serves; authorization_code is required. */
function grantTypesOf(value: unknown): string[] {
  if (value === undefined) return [...SUPPORTED_GRANT_TYPES];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw new OAuthError("invalid_client_metadata", "grant_types must be an array of strings.");
  if (!value.includes("authorization_code")) throw new OAuthError("invalid_client_metadata", "grant_types must include authorization_code: it is the only way to obtain tokens here.");
  return SUPPORTED_GRANT_TYPES.filter((g) => value.includes(g));
}

/**
 * Registers a public client (RFC 7591, no initial access token; DESIGN §2b). Unknown fields are
 * ignored; any token_endpoint_auth_method becomes "none" (said in the response); grant types are
 * cut to those served; each redirect URI is checked on its own (`checkRedirectUri`) and a refused
 * one is dropped, not the registration, unless none is left. The client expires when idle
 * (UNUSED_CLIENT_LIFETIME_MS, IDLE_CLIENT_LIFETIME_MS).
 * @throws OAuthError invalid_client_metadata (not a JSON object, grant or response types not
 *   served, too many redirect URIs), invalid_redirect_uri (none given, or none acceptable).
 */
export async function registerClient(deps: Pick<CoreDeps, "stores" | "clock" | "ids">, metadata: unknown): Promise<RegisteredClient> {
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) throw new OAuthError("invalid_client_metadata", "The registration must be a JSON object.");
  const m = metadata as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw new OAuthError("invalid_redirect_uri", "redirect_uris must be a non-empty array of URIs.");
  if (uris.length > MAX_REDIRECT_URIS) throw new OAuthError("invalid_client_metadata", `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered.`);
  const kept: string[] = [];
  const refused: { redirect_uri: unknown; reason: RedirectUriRefusal }[] = [];
  for (const uri of uris) {
    const check = checkRedirectUri(uri);
    if (check.ok) {
      if (!kept.includes(check.uri)) kept.push(check.uri);
    } else refused.push({ redirect_uri: typeof uri === "string" ? uri.slice(0, MAX_URI) : null, reason: check.reason });
  }
  if (kept.length === 0) throw new OAuthError("invalid_redirect_uri", "No redirect URI is acceptable: use https, http on a loopback host (localhost, 127.0.0.1, [::1]), or an app's private-use scheme; no fragments.");
  const grantTypes = grantTypesOf(m.grant_types);
  if (m.response_types !== undefined && (!Array.isArray(m.response_types) || !m.response_types.includes("code"))) {
    throw new OAuthError("invalid_client_metadata", 'response_types must include "code".');
  }

  const name = cleanText(m.client_name, MAX_TEXT);
  const scopeValues = typeof m.scope === "string" ? m.scope.split(" ").filter((s) => (OPERATIONAL_SCOPES as readonly string[]).includes(s)) : [];
  const contacts = Array.isArray(m.contacts) ? m.contacts.map((c) => cleanText(c, MAX_TEXT)).filter((c): c is string => c !== null).slice(0, 10) : [];
  const registered: Record<string, unknown> = {
    redirect_uris: kept,
    token_endpoint_auth_method: "none",
    grant_types: grantTypes,
    response_types: ["code"],
    ...(name === null ? {} : { client_name: name }),
    ...(scopeValues.length === 0 ? {} : { scope: [...new Set(scopeValues)].join(" ") }),
    ...(contacts.length === 0 ? {} : { contacts }),
  };
  for (const field of ["client_uri", "logo_uri", "tos_uri", "policy_uri"] as const) {
    const url = webUrl(m[field]);
    if (url !== null) registered[field] = url;
  }
  for (const field of ["software_id", "software_version"] as const) {
    const text = cleanText(m[field], MAX_TEXT);
    if (text !== null) registered[field] = text;
  }

  const now = deps.clock.now();
  const client: OAuthClient = { id: deps.ids.next(), name, redirectUris: kept, metadata: registered, createdAt: now, lastUsedAt: null };
  await deps.stores.oauth.insertClient({ client });
  return { client, response: registrationResponse(client, refused) };
}

/** The RFC 7591 §3.2.1 body of a registered client; `refused_redirect_uris` names what was dropped. */
function registrationResponse(client: OAuthClient, refused: readonly { redirect_uri: unknown; reason: RedirectUriRefusal }[]): Record<string, unknown> {
  return {
    client_id: client.id,
    client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    ...client.metadata,
    ...(refused.length === 0 ? {} : { refused_redirect_uris: refused }),
  };
}
