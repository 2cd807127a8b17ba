import { malformed } from "@agentq/core";
import type { Operation } from "@agentq/core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

/** A JSON Schema object as published in the tool catalogue (plain data, no TypeBox symbols). */
export type JsonSchemaObject = Record<string, unknown> & { type: "object"; properties?: Record<string, object>; required?: string[] };

/** The tool argument that carries an Idempotency-Key (an MCP client cannot send the header). */
export const IDEMPOTENCY_KEY_ARGUMENT = "idempotency_key";

/** Tools whose input lifts the REST `envelope` fields to the top level (spec §What the service does 5). */
const FLATTENED_ENVELOPE_TOOLS: ReadonlySet<string> = new Set(["send"]);

/** What a tool call turns into: the operation's raw input, the Idempotency-Key, and the REST request it stands for. */
export interface OperationCall {
  /** The raw input of the operation, in the operation's own shape (REST `{ ...body, ...query, ...path }`). */
  input: Record<string, unknown>;
  /** The key to run the operation under (generated when the operation requires one and none was given). */
  idempotencyKey: string | null;
}

/**
 * One MCP tool and the catalogue operation behind it. The tool is derived from the operation:
 * name = op.name, description = op.summary, inputSchema = op.input (path and query parameters
 * are ordinary arguments), plus `idempotency_key` for operations that honour the header. The
 * send tool flattens the envelope fields to the top level.
 */
export interface ToolBinding {
  tool: Tool;
  operation: Operation;
  /**
   * Turns the tool's arguments into the operation call.
   * @throws DomainError SVC_MALFORMED_REQUEST when `idempotency_key` is not a string.
   */
  toOperationCall(args: Record<string, unknown>, newKey: () => string): OperationCall;
  /** Maps a JSON pointer of the operation's input back to the tool's argument shape (for error details). */
  toToolPath(operationPath: string): string;
}

/** A deep copy of a TypeBox schema as plain JSON Schema (TypeBox keeps its metadata in symbol keys, which JSON drops). */
function plainSchema(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

function isObjectSchema(schema: unknown): schema is JsonSchemaObject {
  return typeof schema === "object" && schema !== null && (schema as { type?: unknown }).type === "object";
}

/** JSON Schema of the error envelope `{ error: { code, message, details? }, request_id }`. */
const ERROR_ENVELOPE_SCHEMA = {
  type: "object",
  required: ["error", "request_id"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string", pattern: "^SVC_[A-Z_]+$" }, message: { type: "string" }, details: { type: "object" } },
    },
    request_id: { type: "string" },
  },
} as const;

/**
 * The published output schema: the operation's response body or, for an `isError` result, the
 * error envelope. SDK clients validate `structuredContent` against it on failures too, so the
 * envelope must be part of it.
 */
function outputSchemaOf(output: JsonSchemaObject): JsonSchemaObject {
  return { type: "object", anyOf: [output, ERROR_ENVELOPE_SCHEMA] };
}

const IDEMPOTENCY_KEY_SCHEMA = {
  type: "string",
  minLength: 1,
  maxLength: 255,
  description: "Idempotency-Key of the call. Reuse the same key to retry safely; when omitted, the server uses a fresh key, so a retry is a new request.",
} as const;

const OPTIONAL_IDEMPOTENCY_KEY_SCHEMA = {
  type: "string",
  minLength: 1,
  maxLength: 255,
  description: "Optional Idempotency-Key of the call; reuse it to retry safely.",
} as const;

/** Splits off `idempotency_key` from the arguments. */
function takeIdempotencyKey(op: Operation, args: Record<string, unknown>, newKey: () => string): { rest: Record<string, unknown>; idempotencyKey: string | null } {
  if (op.idempotency === "none") return { rest: args, idempotencyKey: null };
  const { [IDEMPOTENCY_KEY_ARGUMENT]: raw, ...rest } = args;
  if (raw !== undefined && typeof raw !== "string") {
    throw malformed(`Invalid request: /${IDEMPOTENCY_KEY_ARGUMENT} must be a string.`, { errors: [{ path: `/${IDEMPOTENCY_KEY_ARGUMENT}`, message: "Expected string" }] });
  }
  if (raw !== undefined) return { rest, idempotencyKey: raw };
  return { rest, idempotencyKey: op.idempotency === "required" ? newKey() : null };
}

/** Adds the idempotency argument to a published input schema. */
function withIdempotencyKey(op: Operation, schema: JsonSchemaObject): JsonSchemaObject {
  if (op.idempotency === "none") return schema;
  const property = op.idempotency === "required" ? IDEMPOTENCY_KEY_SCHEMA : OPTIONAL_IDEMPOTENCY_KEY_SCHEMA;
  return { ...schema, properties: { ...(schema.properties ?? {}), [IDEMPOTENCY_KEY_ARGUMENT]: property } };
}

/** The envelope sub-schema of a send-shaped input (`{ envelope: {...}, payload }`), or null. */
function envelopeSchemaOf(input: JsonSchemaObject): JsonSchemaObject | null {
  const envelope = input.properties?.["envelope"];
  return isObjectSchema(envelope) ? envelope : null;
}

function bindPlain(op: Operation, input: JsonSchemaObject): Omit<ToolBinding, "tool" | "operation"> & { inputSchema: JsonSchemaObject } {
  return {
    inputSchema: withIdempotencyKey(op, input),
    toOperationCall(args, newKey) {
      const { rest, idempotencyKey } = takeIdempotencyKey(op, args, newKey);
      return { input: rest, idempotencyKey };
    },
    toToolPath: (path) => path,
  };
}

function bindFlattened(op: Operation, input: JsonSchemaObject, envelope: JsonSchemaObject): Omit<ToolBinding, "tool" | "operation"> & { inputSchema: JsonSchemaObject } {
  const envelopeKeys = Object.keys(envelope.properties ?? {});
  const others = Object.fromEntries(Object.entries(input.properties ?? {}).filter(([k]) => k !== "envelope"));
  const required = [...(envelope.required ?? []), ...(input.required ?? []).filter((k) => k !== "envelope")];
  const { properties: _p, required: _r, ...inputRest } = input;
  const flat: JsonSchemaObject = {
    ...inputRest,
    type: "object",
    properties: { ...(envelope.properties ?? {}), ...others },
    ...(required.length > 0 ? { required } : {}),
  };
  return {
    inputSchema: withIdempotencyKey(op, flat),
    toOperationCall(args, newKey) {
      const { rest, idempotencyKey } = takeIdempotencyKey(op, args, newKey);
      const lifted: Record<string, unknown> = {};
      const remaining: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(rest)) {
        if (envelopeKeys.includes(k)) lifted[k] = v;
        else remaining[k] = v;
      }
      return { input: { envelope: lifted, ...remaining }, idempotencyKey };
    },
    toToolPath: (path) => (path === "/envelope" ? "/" : path.startsWith("/envelope/") ? path.slice("/envelope".length) : path),
  };
}

/**
 * The tool of one catalogue operation, or null for an operation that is not called with a
 * bearer credential (public routes such as the version and OpenAPI documents are not tools).
 */
export function toolBindingFor(op: Operation): ToolBinding | null {
  if (op.auth.kind !== "credential") return null;
  const input = plainSchema(op.input);
  if (!isObjectSchema(input)) throw new Error(`Operation ${op.name}: input schema is not an object schema.`);
  const envelope = FLATTENED_ENVELOPE_TOOLS.has(op.name) ? envelopeSchemaOf(input) : null;
  const bound = envelope === null ? bindPlain(op, input) : bindFlattened(op, input, envelope);
  const output = plainSchema(op.output);
  const tool: Tool = {
    name: op.name,
    description: op.summary,
    inputSchema: bound.inputSchema,
    ...(isObjectSchema(output) ? { outputSchema: outputSchemaOf(output) } : {}),
    annotations: { readOnlyHint: !op.mutates },
  };
  return { tool, operation: op, toOperationCall: bound.toOperationCall, toToolPath: bound.toToolPath };
}

/** The tool catalogue: one tool per credential-authenticated operation, in catalogue order. */
export function toolBindings(operations: readonly Operation[]): ToolBinding[] {
  const out: ToolBinding[] = [];
  for (const op of operations) {
    const binding = toolBindingFor(op);
    if (binding !== null) out.push(binding);
  }
  return out;
}
