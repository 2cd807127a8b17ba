import { DomainError, executeOperation, findOperation, requestFingerprint, type CoreDeps, type Principal } from "@agentq/core";
import { httpOperationContext, sessionIntentCookies, type AfterAnswerWork, type SessionEdge } from "@agentq/http";
import type { Context, MiddlewareHandler } from "hono";
import type { DashboardEnv, DashboardLogger } from "./dashboard-env.ts";

/** One operation call of a page: the catalogue name, the input as REST would assemble it, the form's Idempotency-Key. */
export interface OperationCall {
  name: string;
  input: Record<string, unknown>;
  /** The key the form carried; an operation that requires one gets a fresh key when none came. */
  idempotencyKey?: string | null | undefined;
}

/** What the dashboard's edge gives an operation beyond the core: the browser's session, the work after the answer, the log. */
export interface OperationEdge {
  sessions: SessionEdge;
  /** Where a result's work after the answer runs (`OperationResult.afterAnswer`), as REST's. */
  afterAnswer: AfterAnswerWork;
  logger: DashboardLogger;
}

/**
 * Runs a catalogue operation for the page's request through the same executor as REST and MCP
 * (rate limit, authorization by tier and scope, or by a person's role and step-up, Idempotency-Key,
 * input validation, the handler), so codes, audit rows and rules are the same whichever edge
 * acted. The call's context is built as REST builds it (`httpOperationContext`: client address,
 * the session's cookies, the mail log); the result's work after the answer goes to `edge.afterAnswer`,
 * and its session intent becomes the response's cookies (`sessionIntentCookies`, set by
 * `applySessionIntents` on whatever page the route answers).
 * @returns the operation's response body (the REST response's JSON).
 * @throws DomainError whatever the executor refuses with; SVC_UNAUTHENTICATED without a session
 *   for an operation that needs a caller.
 */
export async function runOperation(deps: CoreDeps, edge: OperationEdge, c: Context<DashboardEnv>, call: OperationCall): Promise<unknown> {
  const op = findOperation(call.name);
  if (op === undefined) throw new Error(`No operation named ${call.name}.`);
  const principal = c.get("principal");
  if (principal === undefined && op.auth.kind !== "public") throw new DomainError("SVC_UNAUTHENTICATED", "Sign in to continue.");
  const path = op.http.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = call.input[name];
    return encodeURIComponent(typeof value === "string" ? value : "");
  });
  const pathParams = new Set([...op.http.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
  const body = Object.fromEntries(Object.entries(call.input).filter(([name]) => !pathParams.has(name)));
  const honoursKey = op.idempotency !== "none";
  const given = call.idempotencyKey === undefined || call.idempotencyKey === "" ? null : call.idempotencyKey;
  const ctx = httpOperationContext(c, edge.sessions, edge.logger, {
    // A public operation runs without a principal, as over REST (a signed-in page's is passed along).
    principal: principal as Principal,
    requestId: c.get("requestId"),
    idempotencyKey: !honoursKey ? null : (given ?? (op.idempotency === "required" ? deps.ids.next() : null)),
    fingerprint: honoursKey ? requestFingerprint({ method: op.http.method, path, body: op.http.method === "GET" ? null : body }) : "",
  });
  const result = await executeOperation(deps, op, ctx, call.input);
  if (result.afterAnswer !== undefined) edge.afterAnswer.run({ what: result.afterAnswer.what, requestId: ctx.requestId }, result.afterAnswer.work);
  if (result.session !== undefined) c.set("sessionCookies", [...(c.get("sessionCookies") ?? []), ...sessionIntentCookies(edge.sessions.cookies, result.session)]);
  return result.body;
}

/**
 * Sets the cookies of the session intents the request's operations returned (a sign-in's
 * session, a sign-out's or an erasure's end) on the response the page answers with, whatever it
 * is: a redirect, a page, an error page.
 */
export function applySessionIntents(): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    await next();
    for (const cookie of c.get("sessionCookies") ?? []) c.res.headers.append("Set-Cookie", cookie);
  };
}
