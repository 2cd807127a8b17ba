import type { OperationContext } from "@agentq/core";
import type { Context } from "hono";
import { failureReason } from "../after-answer-work.ts";
import { changesState, fromOwnOrigin } from "./csrf.ts";
import { requestOrigin } from "./request-origin.ts";
import { readCookie } from "./session-cookie.ts";
import type { SessionEdge } from "./session-edge.ts";

/** What the edge decided about the call before it ran: who calls, the request id, the Idempotency-Key and fingerprint, the rate-limit report. */
export type OperationCallFields = Pick<OperationContext, "principal" | "requestId" | "idempotencyKey" | "fingerprint" | "onRateLimit">;

/**
 * The `OperationContext` of an operation called over HTTP, the same for REST's operation routes
 * and the dashboard's forms: `call`'s fields, and what the request tells (the client address and
 * country: the socket's peer, or the first X-Forwarded-For hop behind a trusted proxy; the
 * session's cookies; the origin check of a cookie-authenticated write as a yes or no,
 * `checkCookieWrite`'s rule), and where a mail not handed over after a commit is logged (the
 * reason only, never the address, the text or a token). The request's signal and cookies are
 * getters, read only when a handler asks (under @hono/node-server the signal builds a whole web
 * Request; only a long-polling claim needs it, and only the people's sign-in steps read cookies).
 * One object literal, not a spread: the hot routes build one per request.
 */
export function httpOperationContext(c: Context, sessions: SessionEdge, logger: { error(fields: Record<string, unknown>, message: string): void }, call: OperationCallFields): OperationContext {
  const origin = requestOrigin(c, sessions.origin, sessions.isTrustedProxy);
  return {
    principal: call.principal,
    requestId: call.requestId,
    idempotencyKey: call.idempotencyKey,
    fingerprint: call.fingerprint,
    onRateLimit: call.onRateLimit,
    get signal() {
      return c.req.raw.signal;
    },
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
    onMailNotSent: (what, error) => logger.error({ request_id: call.requestId, mail: what, reason: failureReason(error) }, "mail not sent"),
  };
}
