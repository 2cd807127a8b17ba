import { executeOperation, requestFingerprint, validTraceparent } from "@agentq/core";
import type { Authenticator, CoreDeps, Operation, OperationResult, Principal } from "@agentq/core";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import { applyRateLimitHeaders } from "../rate-limit-headers.ts";
import type { RateLimitState } from "../rate-limit-headers.ts";
import type { RestEnv } from "../rest-env.ts";
import { assembleRawInput, readDeclaredHeaders, readDeclaredQuery } from "./operation-input.ts";
import { authenticateCaller } from "../people/authenticate-caller.ts";
import { clearCookieHeader, httpOperationContext, nodeBodyOf, readCookie, readJsonBody, refuseForeignOrigin, sessionIntentCookies, toHonoPath, traceOperation, type AfterAnswerWork, type EdgeTracing, type RouteTable, type SessionEdge } from "@agentq/http";

const BODY_METHODS: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH"]);

/** What the operation routes need besides the operations. */
export interface OperationRouteDeps {
  core: CoreDeps;
  authenticator: Pick<Authenticator, "authenticate">;
  logger: RestLogger;
  sessions: SessionEdge;
  /** Where a result's work after the answer runs (`OperationResult.afterAnswer`). */
  afterAnswer: AfterAnswerWork;
  /** The messaging spans (`traceOperation`), when tracing is on. */
  tracing?: EdgeTracing;
}

/**
 * Registers one Hono route per operation (method + path, `{param}` -> `:param`) and records it
 * in `routes` for 404/405 decisions. Throws at start-up when two operations share a route or a
 * path is outside /v1 (catalogue mistakes, never request-time errors). Each route runs, in order:
 * 0. for the anonymous routes of a browser's sign-in (`http.refuseForeignOrigin`), the refusal
 *    of another site's Origin;
 * 1. the body (POST, PUT, PATCH): content type, encoding, limits, depth, JSON object;
 * 2. authentication from the Authorization header, or else the session cookie with its origin
 *    check on writes (skipped for public operations); an operation for a person's session
 *    authenticates before it reads the body, as the people's routes always did;
 * 3. the raw input `{ ...body, ...declared query, ...path params }`;
 * 4. the Idempotency-Key header (read only for operations that honour one; read-only routes
 *    ignore it) and the request fingerprint over method, path and canonical body;
 * 5. `executeOperation` (rate limit, authorize, idempotency requiredness, input validation,
 *    handler), which reports the caller's tightest rate-limit bucket for X-RateLimit-* on the
 *    response whatever its status;
 * and renders the result's status and JSON body (none with a 204 or a redirect), with the
 * cookies of its session intent (`sessionIntentCookies`); the end of an OIDC sign-in
 * (`http.endsOidcAttempt`) clears the attempt's cookie whatever the outcome. Every failure, thrown value or not, is rendered as the
 * error envelope.
 */
export function registerOperationRoutes(app: Hono<RestEnv>, operations: readonly Operation[], routes: RouteTable, deps: OperationRouteDeps): void {
  const seen = new Set<string>();
  for (const op of operations) {
    // Parameter names do not tell routes apart: /a/{x} and /a/{y} are the same route.
    const route = `${op.http.method} ${op.http.path.replace(/\{[^}]+\}/g, "{}")}`;
    if (seen.has(route)) throw new Error(`Two operations share the route ${route} (${op.name}).`);
    if (!op.http.path.startsWith("/v1/")) throw new Error(`Operation ${op.name} has a path outside /v1: ${op.http.path}.`);
    seen.add(route);
    routes.add(op.http.method, op.http.path);
    app.on(op.http.method, toHonoPath(op.http.path), async (c) => {
      let rateLimit: RateLimitState | undefined;
      let res: Response;
      try {
        res = await runOperationRoute(c, op, deps, (state) => {
          rateLimit = state;
        });
      } catch (err) {
        res = errorResponse(c, err, deps.logger);
      }
      applyRateLimitHeaders(res, rateLimit);
      // The attempt is spent either way: a retry starts again at /v1/auth/oidc/start.
      if (op.http.endsOidcAttempt === true) res.headers.append("Set-Cookie", clearCookieHeader(deps.sessions.cookies, deps.sessions.cookies.oidcAttempt));
      return res;
    });
  }
}

async function runOperationRoute(c: Context<RestEnv>, op: Operation, deps: OperationRouteDeps, onRateLimit: (state: RateLimitState) => void): Promise<Response> {
  const request = c.req.raw;
  if (op.http.refuseForeignOrigin === true) refuseForeignOrigin(c, deps.sessions.publicOrigin);
  const hasBody = BODY_METHODS.has(op.http.method) && op.http.noBody !== true;
  const readBody = (): Promise<Record<string, unknown>> => (hasBody ? readJsonBody(request, nodeBodyOf(c)) : Promise.resolve({}));
  // A person's operation: who asks first (401 before 400/413/415), as the people's routes always answered.
  const early = op.auth.kind === "person" ? undefined : await readBody();
  // Deferred: the account and workspace are checked by the executor, or by the write itself for
  // the hot operations (send, claim, ack), so that those are one database statement.
  const authorization = request.headers.get("authorization");
  // A public operation that accepts a caller (notices) authenticates one only when it came with a credential or a session cookie.
  const authenticates = op.auth.kind !== "public" || (op.auth.acceptsCredential === true && (authorization !== null || readCookie(c, deps.sessions.cookies.session) !== null));
  const principal = authenticates ? await authenticateCaller(c, deps, { deferCallerCheck: true }) : undefined;
  if (principal !== undefined) c.set("principal", principal);
  const body = early ?? (await readBody());
  const query = readDeclaredQuery(request.url, op.http.query ?? []);
  const declaredHeaders = op.http.headers ?? {};
  const rawInput = assembleRawInput(body, query, c.req.param(), readDeclaredHeaders(request.headers, declaredHeaders), Object.keys(declaredHeaders));
  if (op.http.rawQuery !== undefined) rawInput[op.http.rawQuery] = new URL(request.url).search;
  const honoursKey = op.idempotency !== "none";
  const path = new URL(request.url).pathname;
  // The client's address and country, the request's signal and cookies, the origin check, the mail log: as the dashboard's forms.
  const ctx = httpOperationContext(c, deps.sessions, deps.logger, {
    // Public operations run without a principal (authorize lets them through before reading it).
    principal: principal as Principal,
    requestId: c.get("requestId"),
    idempotencyKey: honoursKey ? request.headers.get("idempotency-key") : null,
    fingerprint: honoursKey ? requestFingerprint({ method: op.http.method, path, body: hasBody ? body : null }) : "",
    onRateLimit,
  });
  // The request's traceparent: the parent of its HTTP span when tracing is on, else stored with a send as it came.
  const traceparent = request.headers.get("traceparent");
  const result =
    traceparent === null && deps.tracing === undefined
      ? await executeOperation(deps.core, op, ctx, rawInput)
      : await traceOperation(deps.tracing, op, ctx, rawInput, { requestContext: c.get("traceContext"), headerTraceparent: validTraceparent(traceparent) }, (traced) => executeOperation(deps.core, op, traced, rawInput));
  if (result.afterAnswer !== undefined) deps.afterAnswer.run({ what: result.afterAnswer.what, requestId: ctx.requestId }, result.afterAnswer.work);
  const res = result.chunks === undefined ? renderResult(result, op.http.textBody) : renderStream(result, result.chunks, (error) => deps.logger.error({ request_id: ctx.requestId, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) }, "export failed while streaming"));
  if (result.session !== undefined) for (const cookie of sessionIntentCookies(deps.sessions.cookies, result.session)) res.headers.append("Set-Cookie", cookie);
  return res;
}

// The body is JSON.stringify'd exactly as the idempotency record stores it, so a replay
// renders byte for byte what the first response sent. Operation responses are per caller (and
// some carry a plaintext token once), so no cache may keep them. An operation with a text body
// (`http.textBody`) answers that string property of its output alone, as text/plain; a 204 has no body.
function renderResult(result: OperationResult, textBody: string | undefined): Response {
  const headers = new Headers(result.headers);
  headers.set("Cache-Control", "no-store");
  // No content, or a browser redirect (Location from the result's headers).
  if (result.status === 204 || (result.status >= 300 && result.status < 400)) return new Response(null, { status: result.status, headers });
  const text = textBody === undefined ? undefined : (result.body as Record<string, unknown> | null)?.[textBody];
  if (typeof text === "string") {
    headers.set("Content-Type", "text/plain; charset=utf-8");
    return new Response(text, { status: result.status, headers });
  }
  headers.set("Content-Type", "application/json; charset=utf-8");
  return new Response(JSON.stringify(result.body), { status: result.status, headers });
}

/**
 * A result whose body comes in chunks (`OperationResult.chunks`, an export): streamed as JSON as
 * the client reads it. A failure once the status is sent is logged and ends the document
 * unfinished, so that it does not parse.
 */
function renderStream(result: OperationResult, chunks: AsyncGenerator<string>, onFailure: (error: unknown) => void): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        onFailure(error);
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  const headers = new Headers(result.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Cache-Control", "no-store");
  return new Response(body, { status: result.status, headers });
}
