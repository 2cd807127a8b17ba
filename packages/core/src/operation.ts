// The operation type: the one definition from which every interface is derived (DESIGN §1). It
// is the bottom of the core's layers: the areas' use cases and their \`operations.ts\` import it,
// and it imports only types that import nothing back (the dependencies, the caller's model, the
// rate-limit status, a request's origin), so no import circle runs through it.
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { Principal, Role, Scope, Tier } from "./access/model.ts";
import type { CoreDeps } from "./deps.ts";
import type { RequestOrigin } from "./people/people-settings.ts";
import type { RateLimitStatus } from "./rate-limits/rate-limit-status.ts";

/** HTTP methods the REST API uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Who may call an operation. */
export type OperationAuth =
  /**
   * No credential (version, openapi, the notices' public routes). With `acceptsCredential`, a
   * bearer credential sent anyway is authenticated (401 when it is bad) and handed to the
   * handler, which may show more to it (GET /v1/notices/{id} for the affected workspace).
   */
  | { kind: "public"; acceptsCredential?: true }
  /**
   * A bearer credential, of at least `tier`, carrying `scope` when given. With
   * `scopeWaivedForTier`, a credential of that tier (or higher) passes without the scope
   * ("scope view_audit_log, or an administrative-tier credential").
   */
  | { kind: "credential"; tier: Tier; scope: Scope | null; scopeWaivedForTier?: Tier }
  /**
   * A person's session (the session cookie; a credential is 403 SVC_TIER_INSUFFICIENT), whose
   * role is one of `roles`. With `stepUp`, the session's MFA step-up must be fresh
   * (`requireStepUp`); with `closedWorkspaceAllowed`, the operation still runs in a frozen or
   * closed workspace (erase, export). Never an MCP tool. The use case keeps its own checks
   * (they are its rules); the executor's come first, in the same order, with the same codes.
   */
  | { kind: "person"; roles: readonly Role[]; stepUp?: true; closedWorkspaceAllowed?: true };

/**
 * What a handler asks of the caller's browser session, which the REST edge and the dashboard turn into cookies
 * (packages/http/src/session/session-intent.ts); other edges ignore it.
 * - `start`: a new session (or, at stage `pending_mfa`, a sign-in awaiting its second factor)
 *   whose token goes in that stage's cookie for `maxAgeSeconds`; the other stage's cookie is cleared.
 * - `end`: the session ended; its cookie is cleared, and the pending-MFA cookie too unless `keepPendingMfa`.
 * - `oidc_attempt`: a sign-in at the identity provider begins; its sealed attempt goes in the
 *   attempt cookie until the provider's redirect back (the session's cookies are left as they are).
 */
export type SessionIntent =
  | { kind: "start"; stage: "active" | "pending_mfa"; token: string; maxAgeSeconds: number }
  | { kind: "end"; keepPendingMfa?: true }
  | { kind: "oidc_attempt"; value: string; maxAgeSeconds: number };

/** Per-call context the edges pass to a handler. */
export interface OperationContext {
  /** The authenticated caller (absent for public operations, unless one accepting a credential got one). */
  principal: Principal;
  /** The request id (X-Request-Id), echoed in errors and audit rows. */
  requestId: string;
  /** The Idempotency-Key header, when the operation honours one and the caller sent it. */
  idempotencyKey: string | null;
  /** SHA-256 fingerprint of method + path + canonical body, computed by the edge. */
  fingerprint: string;
  /**
   * The client's address as the edge sees it (the socket's peer, or the first X-Forwarded-For hop
   * when the socket is a trusted proxy), for per-address limits of public operations; null or
   * "unknown" when there is none (in-process calls).
   */
  clientAddress?: string | null;
  /** Where the request came from (client address and country), for the people's sign-in limits; absent in-process. */
  origin?: RequestOrigin;
  /** The pending-MFA cookie's value (a sign-in awaiting its second factor), when the edge has one. */
  pendingMfaToken?: string | null;
  /** The OIDC attempt cookie's value (a sign-in at the identity provider under way), when the edge has one. */
  oidcAttemptToken?: string | null;
  /**
   * The session cookie's value, for the one public operation that ends a session whatever it is
   * (sign-out); other operations get the session's person as `principal`.
   */
  sessionToken?: string | null;
  /** False when a cookie-authenticated write would be refused here (not from the service's own origin: SVC_CSRF_REJECTED). */
  cookieWriteAllowed?: boolean;
  /** Aborts long waits when the client goes away or the server drains. */
  signal?: AbortSignal;
  /**
   * Told the caller's rate-limit state (the tightest bucket) as soon as it is known, before
   * the operation runs or fails, so the edge can send X-RateLimit-* on every response.
   */
  onRateLimit?: (status: RateLimitStatus) => void;
  /**
   * Told when a mail the operation sends after its commit could not be handed over (`what`: the
   * kind of mail), which the operation survives (its answer says so), for the edge's log: the
   * reason only, never the address, the text or a token.
   */
  onMailNotSent?: (what: string, error: unknown) => void;
  /**
   * The W3C traceparent a send stores with its message (DESIGN §2c Telemetry): the edge's `send`
   * span, or the caller's own traceparent when tracing is off. Ignored unless valid.
   */
  traceparent?: string | null;
  /**
   * Told of each message a settling write (ack, ack_batch, nack, hand_off) just committed, with
   * the traceparent stored with it, so that a tracing edge can record its `settle` span under
   * the sender's trace. Must not throw.
   */
  onMessageSettled?: (m: { messageId: string; recipientName: string; traceparent: string | null }) => void;
}

/**
 * `ctx` with some fields replaced, its lazy fields kept lazy. The edges give some fields as
 * getters (the abort signal builds a whole web Request under @hono/node-server; the cookies are
 * parsed when read): an object spread would read every one of them on every call.
 */
export function withContext(ctx: OperationContext, changes: Partial<OperationContext>): OperationContext {
  const next = Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx)) as OperationContext;
  return Object.defineProperties(next, Object.getOwnPropertyDescriptors(changes));
}

/** What a handler returns: the HTTP-style status and the response body. */
export interface OperationResult {
  status: number;
  /** The response body; null with a 204. */
  body: unknown;
  /** Extra response headers (e.g. Retry-After is set from errors, not here). */
  headers?: Record<string, string>;
  /** What the caller's browser session becomes (cookies, at the REST edge). */
  session?: SessionIntent;
  /**
   * A body too large to hold (an export): JSON text in chunks, which the REST edge streams in
   * place of `body` (the status is sent before the first chunk; a failure after it ends the
   * document unfinished). Only operations that are not MCP tools return one.
   */
  chunks?: AsyncGenerator<string>;
  /**
   * Work that must not delay the answer, nor show in it or its timing (a password reset's lookup,
   * token and mail: DESIGN §2c): the edge runs it after answering, and logs its failure under `what`.
   */
  afterAnswer?: { what: string; work: () => Promise<unknown> };
}

/** What a handler returns: an `OperationResult` whose status, when left out, is the operation's `successStatus`. */
export type HandlerResult = Omit<OperationResult, "status"> & { status?: number };

/**
 * One operation of the service: the single definition from which the REST route, the MCP tool,
 * the OpenAPI entry and the CLI command are derived (DESIGN §1).
 *
 * `input` is one TypeBox object holding the path parameters, the query parameters and the body
 * fields side by side; the REST edge assembles it as `{ ...body, ...query, ...pathParams }`.
 */
export interface Operation<I extends TObject = TObject, O extends TSchema = TSchema> {
  /** The operation's name; also its MCP tool name (snake_case). */
  name: string;
  /** One line for humans (OpenAPI summary, MCP tool description). */
  summary: string;
  http: {
    method: HttpMethod;
    /** OpenAPI-style path, e.g. `/v1/messages/{message_id}/ack`. */
    path: string;
    /** Names of `input` properties taken from the query string (GET routes). */
    query?: readonly string[];
    /** `input` properties taken from request headers: input name -> header name (e.g. `notice_token` -> `Notice-Token`). */
    headers?: Readonly<Record<string, string>>;
    /**
     * The name of a string property of the output that REST answers alone, as `text/plain;
     * charset=utf-8`, instead of the JSON body (a document with a text format of its own, such as
     * a signed checkpoint note). MCP and in-process callers still get the whole output object.
     */
    textBody?: string;
    /**
     * True for the anonymous routes of a browser's sign-in (sign-up, sign-in, password reset):
     * a request whose Origin header names another site is refused (403 SVC_CSRF_REJECTED) before
     * it is read, so another site cannot sign a browser in or out. Without Origin (a program) it passes.
     */
    refuseForeignOrigin?: true;
    /** True for a POST that reads no body (sign-out): whatever is sent is left unread. */
    noBody?: true;
    /**
     * The `input` property that receives the whole query string as sent (`?a=1&b=2`), for a
     * protocol callback whose parameters are another party's (the OIDC provider's redirect back).
     */
    rawQuery?: string;
    /**
     * True for the end of an OIDC sign-in: every answer, a refusal included, clears the attempt's
     * cookie (an attempt is spent either way; a retry starts again).
     */
    endsOidcAttempt?: true;
  };
  auth: OperationAuth;
  /**
   * The interfaces that offer the operation; absent: every interface its auth allows. An
   * operation whose surfaces leave out "mcp" is not an MCP tool.
   */
  surfaces?: readonly ("rest" | "mcp" | "dashboard" | "cli")[];
  /** `required`: 400 SVC_IDEMPOTENCY_KEY_REQUIRED without the header. */
  idempotency: "required" | "optional" | "none";
  /** True for operations that change state (every mutation has an MCP tool). */
  mutates: boolean;
  input: I;
  output: O;
  /**
   * True when the handler checks the caller's account and workspace inside its own write (a
   * guard of the statement, `callerGuardOf`), and re-checks them freshly (`verifyCaller`) before
   * any other outcome: then a deferred principal is not verified by the executor first, and the
   * request is one database statement (docs/performance.md, lever 3).
   */
  guardsCaller?: true;
  /** Rate-limit tokens a call spends (default 1; validate spends none). */
  rateLimitCost?: 0 | 1;
  /**
   * Error statuses the operation answers beyond those its shape implies (OpenAPI lists both): a
   * public operation's 401 (a refused token or password) and 403 (another site's Origin, a
   * closed sign-up), say.
   */
  errors?: readonly number[];
  /** Status of a success (200, 201, 202, 204, or 302 for a browser redirect): what the edges answer when the handler names none. */
  successStatus: number;
  /** Runs the operation on validated input (a method, so catalogues can hold operations of any input type). */
  handler(deps: CoreDeps, ctx: OperationContext, input: Static<I>): Promise<HandlerResult>;
}

/** The interfaces of the people's operations (a person's session, a browser's sign-in): REST and the dashboard, never MCP. */
export const PEOPLE_SURFACES = ["rest", "dashboard"] as const;

/** An operation of the people's half: offered on `PEOPLE_SURFACES` (never an MCP tool), without an Idempotency-Key. */
export function definePeopleOperation<I extends TObject, O extends TSchema>(entry: Omit<Operation<I, O>, "surfaces" | "idempotency">): Operation<I, O> {
  return { ...entry, surfaces: PEOPLE_SURFACES, idempotency: "none" };
}

/** Identity helper that keeps the input type of an operation's handler precise. */
export function defineOperation<I extends TObject, O extends TSchema>(op: Operation<I, O>): Operation<I, O> {
  return op;
}

/** What a read-only operation states itself: all of an operation but its read-only fields, and a GET path. */
export type ReadOperationEntry<I extends TObject, O extends TSchema> = Omit<Operation<I, O>, "http" | "idempotency" | "mutates" | "successStatus"> & {
  http: Omit<Operation["http"], "method">;
};

/** A read-only operation: a GET with no Idempotency-Key and no change of state, answered 200. The entry names the rest. */
export function defineReadOperation<I extends TObject, O extends TSchema>(entry: ReadOperationEntry<I, O>): Operation<I, O> {
  return { ...entry, http: { method: "GET", ...entry.http }, idempotency: "none", mutates: false, successStatus: 200 };
}
