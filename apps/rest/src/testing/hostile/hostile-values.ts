import fc from "fast-check";

/**
 * A JSON Schema as the catalogue writes them (TypeBox schemas are JSON Schemas too): the keywords
 * the generator reads.
 */
export interface SchemaLike {
  type?: string | string[];
  anyOf?: SchemaLike[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, SchemaLike>;
  required?: string[];
  additionalProperties?: boolean | SchemaLike;
  patternProperties?: Record<string, SchemaLike>;
  items?: SchemaLike;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  minimum?: number;
  maximum?: number;
}

/** Strings PostgreSQL cannot store (U+0000, lone surrogates of both halves): what DESIGN §2c refuses. */
export const POISONED_TEXT: readonly string[] = ["\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "a\u0000b", "x\ud83dy"];

// Where no limit is documented, "maximal" is taken as this (a schema without maxLength is a
// refusal the core makes itself, or a free text bounded by the body limit).
const UNBOUNDED_LENGTH = 4096;
const UNBOUNDED_ITEMS = 100;
// Nesting left for free-form JSON (a payload) under the 64 levels a body may have.
const FREE_JSON_DEPTH = 60;

/** `text` repeated to exactly `length` UTF-16 code units (what maxLength counts). */
function filled(text: string, length: number): string {
  if (length <= 0) return "";
  return text.repeat(Math.ceil(length / text.length)).slice(0, length);
}

/** `poison` put into `base` at `at` (a fraction of its length), the result no longer than `base`. */
export function inject(base: string, poison: string, at: number): string {
  const cut = Math.min(base.length, Math.max(0, Math.floor(at * (base.length - poison.length + 1))));
  return base.slice(0, cut) + poison + base.slice(cut + poison.length);
}

/**
 * `value` with one of its strings (chosen by `pick`, any depth, object keys left alone) carrying
 * `poison` at `at`; `value` itself when it holds no string.
 */
export function poisonOneString(value: unknown, pick: number, poison: string, at: number): unknown {
  const strings: (string | number)[][] = [];
  const walk = (node: unknown, path: (string | number)[]): void => {
    if (typeof node === "string") strings.push(path);
    else if (Array.isArray(node)) node.forEach((child, i) => walk(child, [...path, i]));
    else if (typeof node === "object" && node !== null) for (const [k, child] of Object.entries(node)) walk(child, [...path, k]);
  };
  walk(value, []);
  const chosen = strings[Math.floor(pick * strings.length)];
  if (chosen === undefined) return value;
  if (chosen.length === 0) return inject(value as string, poison, at);
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let node = copy;
  for (const step of chosen.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = chosen[chosen.length - 1] as string | number;
  node[last] = inject(node[last] as string, poison, at);
  return copy;
}

function stringValue(schema: SchemaLike): fc.Arbitrary<string> {
  const max = schema.maxLength ?? UNBOUNDED_LENGTH;
  const min = Math.min(schema.minLength ?? 0, max);
  const shapes: fc.Arbitrary<string>[] = [
    // At the limit, in one-byte, two-byte and astral (surrogate-pair) characters.
    fc.constantFrom("x", "é", "😀", "a-", " ").map((t) => filled(t, max)),
    fc.constant(filled("m", min)),
    fc.string({ maxLength: 40, unit: "grapheme" }),
    fc.string({ maxLength: 40, unit: "binary" }),
    // U+0000 or a lone surrogate somewhere in an otherwise plausible (short or maximal) string.
    fc.tuple(fc.constantFrom(filled("p", Math.max(min, 1)), filled("q", Math.max(max, 1)), "ok"), fc.constantFrom(...POISONED_TEXT), fc.double({ min: 0, max: 1, noNaN: true })).map(([b, p, at]) => inject(b, p, at)),
  ];
  if (schema.pattern !== undefined) shapes.push(fc.stringMatching(new RegExp(schema.pattern)));
  return fc.oneof(...shapes);
}

function integerValue(schema: SchemaLike): fc.Arbitrary<number> {
  const min = schema.minimum ?? Number.MIN_SAFE_INTEGER;
  const max = schema.maximum ?? Number.MAX_SAFE_INTEGER;
  return fc.oneof(fc.constantFrom(min, max), fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) }));
}

/** Free-form JSON (a payload, `additionalProperties`): deep, wide, or ordinary, strings poisoned at random. */
export function freeJson(): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(stringValue({ maxLength: 64 }), fc.integer(), fc.boolean(), fc.constant(null));
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...POISONED_TEXT)), leaf, { maxKeys: 20 }),
    // Deep: nested objects and arrays down to the depth a body may still have.
    fc.tuple(fc.integer({ min: 1, max: FREE_JSON_DEPTH }), leaf, fc.boolean()).map(([depth, inner, arrays]) => {
      let value: unknown = inner;
      for (let i = 0; i < depth; i++) value = arrays && i % 2 === 0 ? [value] : { k: value };
      return value;
    }),
    // Wide: many keys.
    fc.integer({ min: 1, max: 2000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))),
  );
}

function objectValue(schema: SchemaLike, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(schema.properties ?? {}).map(([name, child]) => {
    const value = schemaValue(child, depth + 1);
    // An optional field is sometimes left out.
    return required.has(name) ? value.map((v) => [[name, v]] as [string, unknown][]) : fc.option(value, { nil: undefined }).map((v) => (v === undefined ? [] : [[name, v]]) as [string, unknown][]);
  });
  const extras: fc.Arbitrary<[string, unknown][]>[] = [];
  for (const [pattern, child] of Object.entries(schema.patternProperties ?? {})) {
    extras.push(fc.array(fc.tuple(fc.stringMatching(new RegExp(pattern)), schemaValue(child, depth + 1)), { maxLength: 60 }));
  }
  if (schema.additionalProperties === true) extras.push(freeJson().map((v) => (typeof v === "object" && v !== null && !Array.isArray(v) ? Object.entries(v) : [["extra", v]])));
  return fc.tuple(fc.tuple(...entries), fc.tuple(...extras)).map(([fields, more]) => Object.fromEntries([...fields.flat(), ...more.flat()]));
}

function arrayValue(schema: SchemaLike, depth: number): fc.Arbitrary<unknown[]> {
  const item = schema.items === undefined ? freeJson() : schemaValue(schema.items, depth + 1);
  const max = schema.maxItems ?? UNBOUNDED_ITEMS;
  const min = Math.min(schema.minItems ?? 0, max);
  return fc.oneof(
    fc.array(item, { minLength: min, maxLength: Math.min(max, min + 3) }),
    // The maximal count, every item alike (generating each would be slow at 100 items of 16 KB).
    item.map((one) => Array.from({ length: max }, () => one)),
  );
}

/**
 * Values for `schema` at the edges of what it documents: strings at maxLength (one-byte,
 * multi-byte and astral characters), at minLength, random, or with U+0000 or a lone surrogate
 * injected at a random place; integers at their bounds; arrays at maxItems; objects with their
 * required fields, some optional ones, pattern keys and, where extra properties are allowed,
 * deep (60 levels), wide (2,000 keys) or poisoned free-form JSON. Unions pick a member.
 */
export function schemaValue(schema: SchemaLike, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum !== undefined) return fc.constantFrom(...schema.enum);
  if (schema.anyOf !== undefined) return fc.oneof(...schema.anyOf.map((s) => schemaValue(s, depth)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "string":
      return stringValue(schema);
    case "integer":
      return integerValue(schema);
    case "number":
      return fc.oneof(integerValue(schema), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      return arrayValue(schema, depth);
    case "object":
      return objectValue(schema, depth);
    default:
      return freeJson();
  }
}
