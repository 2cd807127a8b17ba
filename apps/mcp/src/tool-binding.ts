import { malformed, toolsetOf } from "@agentq/core";
import type { Operation } from "@agentq/core";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { dropConventionDescriptions, leanInputSchema, leanOutputSchema } from "./lean-schema.ts";

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
 * name = op.name, description = op.summary, inputSchema = the lean projection of op.input (path
 * and query parameters are ordinary arguments), plus `idempotency_key` for operations that
 * honour the header; outputSchema = the lean projection of op.output (the success result). The
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

/** The `idempotency_key` argument (what it does is said once, in the server's instructions). */
const IDEMPOTENCY_KEY_SCHEMA = { type: "string" } as const;

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
  return { ...schema, properties: { ...(schema.properties ?? {}), [IDEMPOTENCY_KEY_ARGUMENT]: IDEMPOTENCY_KEY_SCHEMA } };
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

/** Whether an operation is an MCP tool: called with a bearer credential (public routes and a person's session operations are not tools) and offered on MCP. */
export function isTool(op: Operation): boolean {
  return op.auth.kind === "credential" && (op.surfaces === undefined || op.surfaces.includes("mcp"));
}

/**
 * The tool of one catalogue operation, or null for an operation that is not a tool (`isTool`).
 * Its schemas are the lean projections of the operation's (lean-schema.ts); `outputSchema:
 * false` publishes none.
 */
export function toolBindingFor(op: Operation, options: { outputSchema?: boolean } = {}): ToolBinding | null {
  if (!isTool(op)) return null;
  const input = plainSchema(op.input);
  if (!isObjectSchema(input)) throw new Error(`Operation ${op.name}: input schema is not an object schema.`);
  const envelope = FLATTENED_ENVELOPE_TOOLS.has(op.name) ? envelopeSchemaOf(input) : null;
  const bound = envelope === null ? bindPlain(op, input) : bindFlattened(op, input, envelope);
  const outputSchema = options.outputSchema === false ? null : leanOutputSchema(plainSchema(op.output));
  const tool: Tool = {
    name: op.name,
    description: op.summary,
    inputSchema: leanInputSchema(bound.inputSchema),
    ...(outputSchema === null ? {} : { outputSchema: outputSchema as Tool["outputSchema"] }),
    // readOnlyHint false is the default (MCP): said only when true.
    ...(op.mutates ? {} : { annotations: { readOnlyHint: true } }),
  };
  return { tool, operation: op, toOperationCall: bound.toOperationCall, toToolPath: bound.toToolPath };
}

/**
 * The tool catalogue: one tool per operation that is a tool (`isTool`), in catalogue order. The
 * session-state tools publish no output schema: their results are the records (twenty-odd fields
 * each) that the OpenAPI document describes, and their shapes would be most of every
 * `tools/list` (DESIGN §2c; docs/decisions.md). The descriptions the conventional arguments share
 * are left out (`dropConventionDescriptions`).
 */
export function toolBindings(operations: readonly Operation[]): ToolBinding[] {
  const out: ToolBinding[] = [];
  for (const op of operations) {
    const binding = toolBindingFor(op, { outputSchema: toolsetOf(op) !== "session_state" });
    if (binding !== null) out.push(binding);
  }
  dropConventionDescriptions(out.map((b) => b.tool.inputSchema));
  return out;
}
