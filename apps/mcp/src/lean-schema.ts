// The tool catalogue an agent pays for on every turn (DESIGN §2c "Agents' context"): the MCP
// tools publish a lean projection of the operation's TypeBox schemas, derived here. The
// catalogue keeps the full schemas (the OpenAPI document and the server's validation use them);
// nothing is written twice.

/** A JSON Schema node as plain data. */
type Node = Record<string, unknown>;

function isNode(v: unknown): v is Node {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Keywords an agent needs to form arguments; the others (string lengths, patterns, formats, `additionalProperties: false`) are checked by the server, which answers SVC_MALFORMED_REQUEST naming the argument. */
const INPUT_KEYWORDS: ReadonlySet<string> = new Set(["type", "description", "enum", "const", "default", "required", "minimum", "maximum", "maxItems"]);

/** `anyOf` of `const`s of one primitive type, as `{type, enum}` (a third of the bytes). */
function enumOf(members: readonly unknown[]): Node | null {
  if (members.length === 0 || !members.every((m) => isNode(m) && "const" in m)) return null;
  const values = members.map((m) => (m as Node)["const"]);
  const types = new Set(values.map((v) => (v === null ? "null" : typeof v)));
  if (types.size !== 1) return null;
  const [type] = types;
  if (type !== "string" && type !== "number" && type !== "boolean") return null;
  return { type, enum: values };
}

/** `anyOf [X, {type: "null"}]` with X of one simple type, as X with `type: [t, "null"]`. */
function nullableOf(members: readonly unknown[], lean: (n: Node) => Node): Node | null {
  if (members.length !== 2) return null;
  const nulls = members.filter((m) => isNode(m) && m["type"] === "null" && Object.keys(m).length === 1);
  const other = members.find((m) => !(isNode(m) && m["type"] === "null" && Object.keys(m).length === 1));
  if (nulls.length !== 1 || !isNode(other)) return null;
  const x = lean(other);
  const type = x["type"];
  if (typeof type !== "string") return null;
  return { ...x, type: [type, "null"], ...(Array.isArray(x["enum"]) ? { enum: [...(x["enum"] as unknown[]), null] } : {}) };
}

/**
 * A query parameter's JSON type beside its query-string spellings (`anyOf [{type: integer},
 * {type: string}]`, `[{type: boolean}, {const: "true"}, {const: "false"}]`): a tool's arguments
 * are JSON, so the JSON type alone.
 */
function jsonTypeOf(members: readonly unknown[]): Node | null {
  const typed = members.filter((m) => isNode(m) && (m["type"] === "integer" || m["type"] === "number" || m["type"] === "boolean"));
  const strings = members.filter((m) => isNode(m) && m["type"] === "string");
  if (typed.length !== 1 || typed.length + strings.length !== members.length) return null;
  return { ...(typed[0] as Node) };
}

/** A description that only restates the argument's name (`ULID of the message.`): boilerplate. */
const NAME_ONLY_DESCRIPTION = /^ULID of the [^.;:,()]*\.$/;

function leanInputNode(node: Node): Node {
  const out: Node = {};
  if (Array.isArray(node["anyOf"])) {
    const members = node["anyOf"] as unknown[];
    const folded = enumOf(members) ?? jsonTypeOf(members) ?? nullableOf(members, leanInputNode);
    if (folded !== null) Object.assign(out, folded);
    else out["anyOf"] = members.filter(isNode).map(leanInputNode);
  }
  for (const [k, v] of Object.entries(node)) {
    if (INPUT_KEYWORDS.has(k) && !(k in out)) out[k] = v;
  }
  if (typeof out["description"] === "string" && NAME_ONLY_DESCRIPTION.test(out["description"])) delete out["description"];
  if (isNode(node["properties"]) && Object.keys(node["properties"]).length > 0) {
    out["properties"] = Object.fromEntries(Object.entries(node["properties"]).map(([k, v]) => [k, isNode(v) ? leanInputNode(v) : v]));
  }
  if (isNode(node["items"])) out["items"] = leanInputNode(node["items"]);
  // A map's value schema (`{key: value}` records) says what the values are; `false` says nothing an agent needs.
  if (isNode(node["additionalProperties"])) out["additionalProperties"] = leanInputNode(node["additionalProperties"]);
  if (isNode(node["patternProperties"])) {
    out["additionalProperties"] = leanInputNode(Object.values(node["patternProperties"]).find(isNode) ?? {});
  }
  return out;
}

/**
 * The input schema a tool publishes: the operation's, with what an agent needs to form a call
 * (types, required arguments, enums, numeric bounds, descriptions) and without what the server
 * checks anyway (string lengths, patterns, formats, `additionalProperties: false`) or what
 * repeats the tool's description (the root's) or the argument's name (`ULID of the message.`).
 */
export function leanInputSchema<T extends Node>(schema: T): T {
  const lean = leanInputNode(schema);
  delete lean["description"];
  return lean as T;
}

/**
 * Arguments that mean the same on every tool that has them; the server's instructions say what
 * they do once (tool-server.ts), so their shared description is left out of each tool.
 */
export const CONVENTIONAL_ARGUMENTS: ReadonlySet<string> = new Set(["idempotency_key", "cursor", "limit", "project_id"]);

/** A description shared by this many tools' conventional argument is the convention's (a tool's own meaning of the name keeps its description). */
const CONVENTION_MIN_TOOLS = 3;

/**
 * Leaves out, in place, the descriptions of the conventional arguments (`CONVENTIONAL_ARGUMENTS`)
 * that at least three of the given input schemas share word for word.
 */
export function dropConventionDescriptions(schemas: readonly Node[]): void {
  const uses = new Map<string, number>();
  const descriptionOf = (schema: Node, name: string): string | null => {
    const p = isNode(schema["properties"]) ? schema["properties"][name] : undefined;
    return isNode(p) && typeof p["description"] === "string" ? p["description"] : null;
  };
  for (const schema of schemas) {
    for (const name of CONVENTIONAL_ARGUMENTS) {
      const d = descriptionOf(schema, name);
      if (d !== null) uses.set(`${name}\n${d}`, (uses.get(`${name}\n${d}`) ?? 0) + 1);
    }
  }
  for (const schema of schemas) {
    for (const name of CONVENTIONAL_ARGUMENTS) {
      const d = descriptionOf(schema, name);
      if (d !== null && (uses.get(`${name}\n${d}`) ?? 0) >= CONVENTION_MIN_TOOLS) delete ((schema["properties"] as Node)[name] as Node)["description"];
    }
  }
}

/**
 * The type of a result field, its fields shown `depth` levels down: `{type}` (nullable as
 * `[t, "null"]`), or an array's item type. A list's items are what the result is about: the
 * items of the first list met (`listBonus`) are shown one level more.
 */
function fieldTypeOf(node: Node, depth: number, listBonus = true): Node {
  if (Array.isArray(node["anyOf"])) {
    const members = (node["anyOf"] as unknown[]).filter(isNode);
    const e = enumOf(members);
    if (e !== null) return { type: e["type"] };
    const n = nullableOf(members, (m) => fieldTypeOf(m, depth, listBonus));
    if (n !== null) {
      const { enum: _e, ...rest } = n;
      return rest;
    }
    return {};
  }
  if ("const" in node) return { type: typeof node["const"] };
  const type = node["type"];
  if (type === "array") {
    const items = isNode(node["items"]) ? fieldTypeOf(node["items"], listBonus ? depth + 1 : depth, false) : {};
    return Object.keys(items).length === 0 ? { type } : { type, items };
  }
  if (type === "object" && depth > 0 && isNode(node["properties"])) {
    return { type, properties: Object.fromEntries(Object.entries(node["properties"]).map(([k, v]) => [k, isNode(v) ? fieldTypeOf(v, depth - 1, listBonus) : {}])) };
  }
  return typeof type === "string" || Array.isArray(type) ? { type } : {};
}

/**
 * The output schema a tool publishes: the success result's fields and their types, one level
 * deep (a list's items one level more: `{items: [{id, state, ...}], next_cursor}`), with no
 * descriptions and no `required` (so the error
 * envelope of an `isError` result passes clients that check it against this schema too).
 * Null when the result is not an object.
 */
export function leanOutputSchema(schema: Node, depth = 1): Node | null {
  if (schema["type"] !== "object") return null;
  const out = fieldTypeOf(schema, depth);
  return { type: "object", ...(isNode(out["properties"]) ? { properties: out["properties"] } : {}) };
}
