import type { RequestOrigin } from "@agentq/core";
import type { Context } from "hono";
import { BlockList, isIP } from "node:net";
import { Readable } from "node:stream";

/** How the edge tells where a request came from (DESIGN §2b: geofence, throttling). */
export interface OriginSettings {
  /** CIDRs (or single addresses) of proxies whose X-Forwarded-For and country header are trusted. */
  trustedProxies: readonly string[];
  /** Header carrying the client's country (e.g. CF-IPCountry), trusted only from those proxies; null: none. */
  countryHeader: string | null;
}

/** No proxy trusted, no country header. */
export const DEFAULT_ORIGIN_SETTINGS: OriginSettings = { trustedProxies: [], countryHeader: null };

/** An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as the IPv4 address it carries. */
function plainAddress(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

/**
 * A matcher of the trusted proxies.
 * @throws Error at start-up when a CIDR does not parse.
 */
export function trustedProxyMatcher(cidrs: readonly string[]): (address: string) => boolean {
  // No proxy trusted (the default): nothing to check per request (a BlockList check builds a SocketAddress each time).
  if (cidrs.length === 0) return () => false;
  const list = new BlockList();
  for (const raw of cidrs) {
    const [ip, bits] = raw.trim().split("/");
    const family = ip === undefined ? 0 : isIP(ip);
    if (ip === undefined || family === 0) throw new Error(`SVC_TRUSTED_PROXIES: "${raw}" is not an address or CIDR.`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(ip, type);
    else {
      const prefix = Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) throw new Error(`SVC_TRUSTED_PROXIES: "${raw}" has a bad prefix length.`);
      list.addSubnet(ip, prefix, type);
    }
  }
  return (address) => {
    const plain = plainAddress(address);
    const family = isIP(plain);
    return family !== 0 && list.check(plain, family === 4 ? "ipv4" : "ipv6");
  };
}

/** The socket's peer address of the request under @hono/node-server, or null. */
function socketAddress(c: Context): string | null {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof Readable)) return null;
  const address = (incoming as unknown as { socket?: { remoteAddress?: string } }).socket?.remoteAddress;
  return typeof address === "string" ? plainAddress(address) : null;
}

/**
 * Where the request came from: the socket's address, or, when the socket is a trusted proxy,
 * the first X-Forwarded-For hop (the client as the proxy saw it); the country from the
 * configured header, read only when the socket is a trusted proxy (anyone else could set it).
 */
export function requestOrigin(c: Context, settings: OriginSettings, isTrusted: (address: string) => boolean): RequestOrigin {
  const socket = socketAddress(c) ?? "unknown";
  const trusted = socket !== "unknown" && isTrusted(socket);
  let clientAddress = socket;
  if (trusted) {
    const first = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (first !== undefined && isIP(plainAddress(first)) !== 0) clientAddress = plainAddress(first);
  }
  let country: string | null = null;
  if (trusted && settings.countryHeader !== null) {
    const value = c.req.header(settings.countryHeader)?.trim().toUpperCase();
    if (value !== undefined && /^[A-Z]{2}$/.test(value)) country = value;
  }
  return { clientAddress, country };
}
