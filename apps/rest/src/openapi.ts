import type { HttpMethod, Operation } from "@agentq/core";
import { pathParameterNames } from "@agentq/http";

/** A JSON Schema (plain JSON: TypeBox's symbol keys are dropped). */
export type JsonSchema = Record<string, unknown>;

/** A route served outside the catalogue (version, openapi, the /v1/auth routes), listed in the document too. */
export interface PlainRouteDescription {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  /** Schema of the success response body; null for a response without one (204). */
  response: JsonSchema | null;
  /** The success body's media type (default `application/json`). */
  responseMediaType?: "application/json" | "text/plain";
  /** Status of a success (default 200). */
  status?: number;
  /** Schema of the JSON request body, when the route takes one. */
  requestBody?: unknown;
  /** Statuses of its error responses (default 400, 404, 503). */
  errors?: readonly number[];
  /** `session`: a person's session cookie is required (default: public). */
  security?: "session";
  /** Path and query parameters (name, where, schema). */
  parameters?: readonly { name: string; in: "path" | "query"; required: boolean; schema: JsonSchema }[];
}

/** The document's `info`. */
export interface OpenApiInfo {
  title: string;
  version: string;
}

const ERROR_ENVELOPE_SCHEMA: JsonSchema = {
  type: "object",
  required: ["error", "request_id"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", pattern: "^SVC_[A-Z_]+$", description: "Stable error code; branch on it, never on message. Unknown codes may appear within v1." },
        message: { type: "string", description: "For humans; may be reworded." },
        details: { type: "object", additionalProperties: true },
      },
    },
    request_id: { type: "string", description: "Equals the X-Request-Id response header." },
  },
};

/**
 * Builds the OpenAPI 3.1 document of the REST API from the operation catalogue: every route,
 * the bearer security scheme, path, query and Idempotency-Key parameters, and — beyond the
 * spec, which promises none — request and response body schemas taken from the operations'
 * TypeBox schemas (which are JSON Schema already). Every error response refers to the one
 * ErrorEnvelope schema.
 */
export function buildOpenApiDocument(operations: readonly Operation[], plainRoutes: readonly PlainRouteDescription[], info: OpenApiInfo): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const add = (method: HttpMethod, path: string, entry: unknown): void => {
    (paths[path] ??= {})[method.toLowerCase()] = entry;
  };
  for (const route of plainRoutes) {
    const status = String(route.status ?? 200);
    add(route.method, route.path, {
      operationId: route.operationId,
      summary: route.summary,
      security: route.security === "session" ? [{ sessionCookie: [] }] : [],
      ...(route.parameters === undefined ? {} : { parameters: route.parameters }),
      ...(route.requestBody === undefined ? {} : { requestBody: { required: true, content: { "application/json": { schema: toJsonSchema(route.requestBody) } } } }),
      responses: {
        [status]: route.response === null ? { description: "Success (no body)." } : { description: "Success.", content: { [route.responseMediaType ?? "application/json"]: { schema: route.response } } },
        ...errorResponses(route.errors ?? [400, 404, 503]),
      },
    });
  }
  for (const op of operations) add(op.http.method, op.http.path, describeOperation(op));
  return {
    openapi: "3.1.0",
    info,
    servers: [{ url: "/" }],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An agentq credential (agq_op_... or agq_ad_...) or an OAuth access token." },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "__Host-agentq_session",
          description: "A person's session (POST /v1/auth/sign-in); `agentq_session` when PUBLIC_BASE_URL is plain http on a host other than loopback. Accepted on reads and administrative routes; writes must come from the service's own origin (Origin or Sec-Fetch-Site), else 403 SVC_CSRF_REJECTED.",
        },
      },
      schemas: { ErrorEnvelope: ERROR_ENVELOPE_SCHEMA },
      responses: { Error: jsonResponse("An error, in the error envelope (Cache-Control: no-store).", { $ref: "#/components/schemas/ErrorEnvelope" }) },
    },
  };
}

function describeOperation(op: Operation): Record<string, unknown> {
  const input = toJsonSchema(op.input);
  const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(Array.isArray(input.required) ? (input.required as string[]) : []);
  const pathNames = pathParameterNames(op.http.path);
  const queryNames = op.http.query ?? [];
  const headerInputs = Object.entries(op.http.headers ?? {});
  const parameters: unknown[] = [
    ...pathNames.map((name) => ({ name, in: "path", required: true, schema: properties[name] ?? { type: "string" } })),
    ...queryNames.map((name) => ({ name, in: "query", required: required.has(name), schema: properties[name] ?? { type: "string" } })),
    ...headerInputs.map(([name, header]) => ({ name: header, in: "header", required: required.has(name), schema: properties[name] ?? { type: "string" } })),
  ];
  if (op.idempotency !== "none") {
    parameters.push({ name: "Idempotency-Key", in: "header", required: op.idempotency === "required", schema: { type: "string", minLength: 1, maxLength: 255 } });
  }
  const isPublic = op.auth.kind === "public";
  // A public route that also takes a credential: anonymous or bearer.
  const optionalBearer = op.auth.kind === "public" && op.auth.acceptsCredential === true;
  const hasBody = (op.http.method === "POST" || op.http.method === "PUT" || op.http.method === "PATCH") && op.http.noBody !== true;
  const entry: Record<string, unknown> = {
    operationId: op.name,
    summary: op.summary,
    ...(isPublic ? { security: optionalBearer ? [{}, { bearerAuth: [] }] : [] } : {}),
    // A person's session operation: the session cookie only, of these roles (with a fresh step-up).
    ...(op.auth.kind === "person" ? { security: [{ sessionCookie: [] }], "x-agentq-roles": op.auth.roles, ...(op.auth.stepUp === true ? { "x-agentq-step-up": true } : {}) } : {}),
    ...(op.auth.kind === "credential" ? { "x-agentq-tier": op.auth.tier, "x-agentq-scope": op.auth.scope } : {}),
    // "scope view_audit_log, or an administrative-tier credential": the tier that needs no scope.
    ...(op.auth.kind === "credential" && op.auth.scopeWaivedForTier !== undefined ? { "x-agentq-scope-waived-for-tier": op.auth.scopeWaivedForTier } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
  };
  if (hasBody) {
    const bodyNames = Object.keys(properties).filter((name) => !pathNames.includes(name) && !queryNames.includes(name) && !headerInputs.some(([input]) => input === name));
    const bodySchema: JsonSchema = {
      ...input,
      properties: Object.fromEntries(bodyNames.map((name) => [name, properties[name]])),
      required: [...required].filter((name) => bodyNames.includes(name)),
    };
    entry.requestBody = { required: false, content: { "application/json": { schema: bodySchema } } };
  }
  const errorStatuses = [400, 404, 503];
  if (!isPublic) errorStatuses.push(401, 403, 429);
  else if (optionalBearer) errorStatuses.push(401);
  // The public intake is rate-limited per client address.
  else if (op.mutates && headerInputs.length === 0) errorStatuses.push(429);
  // A message withheld after a legal notice (DESIGN §2b).
  if (pathNames.includes("message_id")) errorStatuses.push(451);
  if (hasBody) errorStatuses.push(413, 415);
  if (op.mutates) errorStatuses.push(409);
  for (const status of op.errors ?? []) if (!errorStatuses.includes(status)) errorStatuses.push(status);
  const noBody = op.successStatus === 204 || (op.successStatus >= 300 && op.successStatus < 400);
  const success = noBody ? { description: "Success (no body)." } : op.http.textBody === undefined ? jsonResponse("Success.", toJsonSchema(op.output)) : textResponse(op.http.textBody, toJsonSchema(op.output));
  entry.responses = { [String(op.successStatus)]: success, ...errorResponses(errorStatuses) };
  return entry;
}

function jsonResponse(description: string, schema: JsonSchema): Record<string, unknown> {
  return { description, content: { "application/json": { schema } } };
}

/** The success response of an operation answering one string property of its output as text/plain (`http.textBody`). */
function textResponse(field: string, output: JsonSchema): Record<string, unknown> {
  const property = ((output.properties ?? {}) as Record<string, JsonSchema>)[field] ?? { type: "string" };
  return { description: "Success.", content: { "text/plain": { schema: { ...property, type: "string" } } } };
}

function errorResponses(statuses: readonly number[]): Record<string, unknown> {
  return Object.fromEntries([...statuses].sort((a, b) => a - b).map((s) => [String(s), { $ref: "#/components/responses/Error" }]));
}

// TypeBox schemas are JSON Schema plus symbol-keyed metadata; a JSON round trip keeps the former.
function toJsonSchema(schema: unknown): JsonSchema {
  return JSON.parse(JSON.stringify(schema ?? {})) as JsonSchema;
}
