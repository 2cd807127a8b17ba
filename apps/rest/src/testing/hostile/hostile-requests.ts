import type { Operation } from "@agentq/core";
import fc from "fast-check";
import type { PlainRouteDescription } from "../../openapi.ts";
import { poisonOneString, POISONED_TEXT, schemaValue, type SchemaLike } from "./hostile-values.ts";

/** Who a route needs: an administrative or operational credential, a person's session, or nobody. */
export type RouteCaller = "administrative" | "operational" | "session" | "public";

/**
 * One REST route as the hostile-input suite calls it, from a catalogue operation or a hand-written
 * route's OpenAPI description: its inputs split by where they travel.
 */
export interface RouteUnderTest {
  /** `POST /v1/messages/send (send)`. */
  label: string;
  /** The operation's name (or the plain route's operationId). */
  name: string;
  method: string;
  /** The path template (`/v1/messages/{message_id}/ack`). */
  path: string;
  caller: RouteCaller;
  /** Every input field with its schema (path, query, header and body fields side by side). */
  input: SchemaLike & { properties: Record<string, SchemaLike> };
  pathParams: readonly string[];
  query: readonly string[];
  /** Input name -> request header name. */
  headers: Readonly<Record<string, string>>;
  /** Whether a body is sent (POST, PUT, PATCH). */
  hasBody: boolean;
  /** Whether an Idempotency-Key is sent. */
  idempotent: boolean;
}

const pathParamsOf = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");
const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/** The catalogue's operations as routes under test: every operation, whatever area added it. */
export function catalogueRoutes(operations: readonly Operation[]): RouteUnderTest[] {
  return operations.map((op) => ({
    label: `${op.http.method} ${op.http.path} (${op.name})`,
    name: op.name,
    method: op.http.method,
    path: op.http.path,
    caller: op.auth.kind === "public" ? "public" : op.auth.kind === "person" ? "session" : op.auth.tier,
    input: op.input as unknown as RouteUnderTest["input"],
    pathParams: pathParamsOf(op.http.path),
    query: op.http.query ?? [],
    headers: op.http.headers ?? {},
    hasBody: BODY_METHODS.has(op.http.method),
    idempotent: op.idempotency !== "none",
  }));
}

/** The hand-written REST routes (sign-out, the OIDC redirects, version, OpenAPI, the log key) from their OpenAPI descriptions. */
export function plainRoutes(descriptions: readonly PlainRouteDescription[]): RouteUnderTest[] {
  return descriptions.map((d) => {
    const body = (d.requestBody ?? { properties: {}, required: [] }) as SchemaLike;
    const properties: Record<string, SchemaLike> = { ...(body.properties ?? {}) };
    const required = [...(body.required ?? [])];
    for (const p of d.parameters ?? []) {
      properties[p.name] = p.schema;
      if (p.required) required.push(p.name);
    }
    return {
      label: `${d.method} ${d.path} (${d.operationId})`,
      name: d.operationId,
      method: d.method,
      path: d.path,
      caller: d.security === "session" ? "session" : "public",
      input: { type: "object", properties, required },
      pathParams: pathParamsOf(d.path),
      query: (d.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name),
      headers: {},
      hasBody: BODY_METHODS.has(d.method),
      idempotent: false,
    };
  });
}

/** A request the suite sends (the caller's credentials are added by the suite). */
export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | null;
}

/** What makes requests reach past validation: real record ids for path parameters, and a valid input to start from. */
export interface RequestSeeds {
  /** Ids of existing records by path parameter name. */
  pathValues?: Readonly<Record<string, readonly string[]>>;
  /** A valid input (top-level fields), of which some fields are replaced. */
  plausible?: Readonly<Record<string, unknown>>;
  /** Fields held at a value (a long poll's `wait` at PT0S). */
  fixed?: Readonly<Record<string, unknown>>;
}

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 });
const asQueryValue = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));
// encodeURIComponent throws on a lone surrogate; a client's URL would carry U+FFFD's bytes instead.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const pathSegment = (v: string): string => encodeURIComponent(v.replace(LONE_SURROGATE, "\uFFFD"));

/**
 * Requests at `route` whose inputs come from its schema (`schemaValue`: strings at maxLength or
 * poisoned with U+0000 and lone surrogates, arrays at maxItems, deep and wide free-form JSON), in
 * the body, the query string and the path alike. Besides wholly generated inputs, some start
 * from the seeds' valid input (so they reach the handler and the database) with some fields
 * replaced, and in any of them one string at a random place may carry U+0000 or a lone surrogate.
 */
export function hostileRequests(route: RouteUnderTest, seeds: RequestSeeds = {}): fc.Arbitrary<HostileRequest> {
  const generated = schemaValue(route.input) as fc.Arbitrary<Record<string, unknown>>;
  const plausible = seeds.plausible;
  const fields = Object.keys(route.input.properties);
  const unit = fc.double({ min: 0, max: 0.999, noNaN: true });
  const poisonIn = (values: fc.Arbitrary<Record<string, unknown>>) =>
    fc.tuple(values, unit, fc.constantFrom(...POISONED_TEXT), unit).map(([value, pick, poison, at]) => poisonOneString(value, pick, poison, at) as Record<string, unknown>);
  const input: fc.Arbitrary<Record<string, unknown>> = plausible === undefined || fields.length === 0
    ? fc.oneof(generated, poisonIn(generated))
    : fc.oneof(
        { weight: 3, arbitrary: generated },
        // The valid input with one field replaced by a generated value (or left out).
        {
          weight: 3,
          arbitrary: fc.tuple(generated, fc.constantFrom(...fields)).map(([g, field]) => {
            const out: Record<string, unknown> = { ...plausible };
            if (field in g) out[field] = g[field];
            else delete out[field];
            return out;
          }),
        },
        { weight: 3, arbitrary: poisonIn(fc.constant({ ...plausible })) },
        { weight: 1, arbitrary: fc.constant({ ...plausible }) },
      );
  const pathValue = (name: string): fc.Arbitrary<string> => {
    const known = seeds.pathValues?.[name] ?? [];
    const any = schemaValue(route.input.properties[name] ?? { type: "string" }).map(asQueryValue);
    return known.length === 0 ? any : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: any });
  };
  const headerValues = fc.tuple(...Object.keys(route.headers).map(() => fc.option(headerText, { nil: undefined })));
  return fc.tuple(input, fc.tuple(...route.pathParams.map(pathValue)), headerValues, fc.uuid()).map(([raw, pathValues, headerValuesList, key]) => {
    const values = { ...raw, ...seeds.fixed };
    let path = route.path;
    route.pathParams.forEach((name, i) => {
      path = path.replace(`{${name}}`, pathSegment(pathValues[i] ?? ""));
    });
    const query = new URLSearchParams();
    const body: Record<string, unknown> = {};
    const headerNames = Object.keys(route.headers);
    for (const [k, v] of Object.entries(values)) {
      if (route.pathParams.includes(k) || headerNames.includes(k) || v === undefined) continue;
      if (route.query.includes(k)) query.set(k, asQueryValue(v));
      else if (route.hasBody) body[k] = v;
    }
    const headers: Record<string, string> = {};
    headerNames.forEach((name, i) => {
      const value = headerValuesList[i];
      if (value !== undefined) headers[route.headers[name] ?? name] = value;
    });
    if (route.idempotent) headers["Idempotency-Key"] = key;
    if (route.hasBody) headers["Content-Type"] = "application/json";
    const qs = query.toString();
    return { method: route.method, path: qs === "" ? path : `${path}?${qs}`, headers, body: route.hasBody ? JSON.stringify(body) : null };
  });
}
