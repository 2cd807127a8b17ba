import { requirePublicBaseUrl, type CoreDeps } from "@agentq/core";
import { publicOriginOf } from "./csrf.ts";
import { DEFAULT_ORIGIN_SETTINGS, trustedProxyMatcher, type OriginSettings } from "./request-origin.ts";
import { sessionCookies, type SessionCookies } from "./session-cookie.ts";

/** Everything the REST edge needs to serve people's sessions, fixed at start-up. */
export interface SessionEdge {
  cookies: SessionCookies;
  /** The service's own origin (PUBLIC_BASE_URL's), for the origin check. */
  publicOrigin: string;
  origin: OriginSettings;
  isTrustedProxy: (address: string) => boolean;
}

/**
 * The session edge of an app over `deps` (PUBLIC_BASE_URL from `deps.publicBaseUrl`).
 * @throws Error when a trusted proxy CIDR does not parse, or `deps.publicBaseUrl` is not set.
 */
export function createSessionEdge(deps: Pick<CoreDeps, "publicBaseUrl">, origin: OriginSettings = DEFAULT_ORIGIN_SETTINGS): SessionEdge {
  const base = requirePublicBaseUrl(deps);
  return { cookies: sessionCookies(base), publicOrigin: publicOriginOf(base), origin, isTrustedProxy: trustedProxyMatcher(origin.trustedProxies) };
}
