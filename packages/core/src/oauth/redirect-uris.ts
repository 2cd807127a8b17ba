/** The longest redirect URI accepted at registration. */
export const MAX_REDIRECT_URI_LENGTH = 2000;
/** The most redirect URIs one registration may name. */
export const MAX_REDIRECT_URIS = 20;

/** Schemes never accepted as private-use redirect schemes: they run code, read files or leave the app. */
const FORBIDDEN_SCHEMES = new Set(["javascript", "data", "vbscript", "file", "about", "blob", "filesystem", "ws", "wss", "ftp", "mailto", "tel", "sms"]);

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True for the loopback hosts RFC 8252 §7.3 allows over plain http. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/** Why a redirect URI is refused at registration. */
export type RedirectUriRefusal = "not_a_string" | "too_long" | "not_a_url" | "fragment" | "credentials" | "http_not_loopback" | "forbidden_scheme";

/**
 * Checks one redirect URI of a registration (DESIGN §2b): https with any host (matched exactly
 * later); http only on a loopback host (matched on any port later, RFC 8252 §7.3); any other
 * scheme as a private-use scheme of a native app (`cursor://...`, RFC 8252 §7.1) unless it is one
 * that runs code or leaves the app. Never a fragment or user credentials (RFC 6749 §3.1.2).
 */
export function checkRedirectUri(uri: unknown): { ok: true; uri: string } | { ok: false; reason: RedirectUriRefusal } {
  if (typeof uri !== "string") return { ok: false, reason: "not_a_string" };
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return { ok: false, reason: "too_long" };
  const url = parseUrl(uri);
  if (url === null || !/^[a-z][a-z0-9+.-]*:/i.test(uri)) return { ok: false, reason: "not_a_url" };
  if (uri.includes("#")) return { ok: false, reason: "fragment" };
  if (url.username !== "" || url.password !== "") return { ok: false, reason: "credentials" };
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === "https") return url.hostname === "" ? { ok: false, reason: "not_a_url" } : { ok: true, uri };
  if (scheme === "http") return isLoopbackHost(url.hostname) ? { ok: true, uri } : { ok: false, reason: "http_not_loopback" };
  if (FORBIDDEN_SCHEMES.has(scheme)) return { ok: false, reason: "forbidden_scheme" };
  return { ok: true, uri };
}

/**
 * True when `requested` may be used as the redirect URI of a client that registered
 * `registered`: an exact match, or a loopback http URI equal to a registered one but for the
 * port (RFC 8252 §7.3: native apps listen on whatever port is free).
 */
export function redirectUriAllowed(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const url = parseUrl(requested);
  if (url === null || url.protocol !== "http:" || !isLoopbackHost(url.hostname) || requested.includes("#")) return false;
  return registered.some((r) => {
    const reg = parseUrl(r);
    return reg !== null && reg.protocol === "http:" && reg.hostname.toLowerCase() === url.hostname.toLowerCase() && reg.pathname === url.pathname && reg.search === url.search;
  });
}

/** What Connections shows of a redirect URI: host[:port], or the scheme of a private-use URI without a host. */
export function redirectHost(uri: string): string {
  const url = parseUrl(uri);
  if (url === null) return "";
  return url.host !== "" ? url.host : url.protocol;
}

function parseUrl(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}
