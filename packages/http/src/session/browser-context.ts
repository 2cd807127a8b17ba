import type { OperationContext } from "@agentq/core";
import type { Context } from "hono";
import { failureReason } from "../after-answer-work.ts";
import { changesState, fromOwnOrigin } from "./csrf.ts";
import { requestOrigin } from "./request-origin.ts";
import { readCookie } from "./session-cookie.ts";
import type { SessionEdge } from "./session-edge.ts";

/** What an operation call's context learns from a browser's request (its origin and cookies), whichever edge took it. */
export type BrowserContext = Required<Pick<OperationContext, "clientAddress" | "origin" | "pendingMfaToken" | "oidcAttemptToken" | "sessionToken" | "cookieWriteAllowed" | "onMailNotSent">>;

/**
 * `ctx` with the parts of an `OperationContext` that come from a browser's request, the same for
 * REST's operation routes and the dashboard's forms: the client address and country (the
 * socket's peer, or the first X-Forwarded-For hop behind a trusted proxy), the session's cookies
 * (read lazily, as getters kept on `ctx`: only the people's sign-in steps need them), the origin
 * check of a cookie-authenticated write as a yes or no (`checkCookieWrite`'s rule), and where a
 * mail not handed over after a commit is logged (the reason only, never the address, the text or
 * a token).
 */
export function withBrowserContext<T extends { requestId: string }>(ctx: T, c: Context, sessions: SessionEdge, logger: { error(fields: Record<string, unknown>, message: string): void }): T & BrowserContext {
  const origin = requestOrigin(c, sessions.origin, sessions.isTrustedProxy);
  const requestId = ctx.requestId;
  const browser: BrowserContext = {
    clientAddress: origin.clientAddress,
    origin,
    get pendingMfaToken() {
      return readCookie(c, sessions.cookies.pendingMfa);
    },
    get oidcAttemptToken() {
      return readCookie(c, sessions.cookies.oidcAttempt);
    },
    get sessionToken() {
      return readCookie(c, sessions.cookies.session);
    },
    get cookieWriteAllowed() {
      return !changesState(c.req.method) || fromOwnOrigin(c, sessions.publicOrigin);
    },
    onMailNotSent: (what, error) => logger.error({ request_id: requestId, mail: what, reason: failureReason(error) }, "mail not sent"),
  };
  // Defined, not spread: a spread would read every cookie now.
  return Object.defineProperties(ctx, Object.getOwnPropertyDescriptors(browser)) as T & BrowserContext;
}
