import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { dropConventionDescriptions, leanInputSchema, leanOutputSchema } from "./lean-schema.ts";

describe("leanInputSchema", () => {
  it("keeps types, required arguments, enums, numeric bounds and descriptions; drops what the server checks and the root's description", () => {
    const lean = leanInputSchema({
      type: "object",
      description: "The tool says this.",
      additionalProperties: false,
      required: ["title"],
      properties: {
        title: { type: "string", minLength: 1, maxLength: 200, pattern: "^x", description: "The title." },
        at: { type: "string", format: "date-time", maxLength: 40 },
        max: { type: "integer", minimum: 1, maximum: 100, default: 1 },
        tags: { type: "array", maxItems: 20, items: { type: "string", maxLength: 40 } },
      },
    });
    expect(lean).toEqual({
      type: "object",
      required: ["title"],
      properties: {
        title: { type: "string", description: "The title." },
        at: { type: "string" },
        max: { type: "integer", minimum: 1, maximum: 100, default: 1 },
        tags: { type: "array", maxItems: 20, items: { type: "string" } },
      },
    });
  });

  it("folds a union of literals into an enum, a nullable into a type pair, and a query parameter's string spellings into its JSON type", () => {
    const lean = leanInputSchema({
      type: "object",
      properties: {
        priority: { description: "Dequeue priority.", anyOf: [{ const: "low", type: "string" }, { const: "high", type: "string" }] },
        correlation_id: { anyOf: [{ type: "string", maxLength: 128 }, { type: "null" }] },
        limit: { anyOf: [{ type: "integer" }, { type: "string" }] },
        ready: { anyOf: [{ type: "boolean" }, { const: "true", type: "string" }, { const: "false", type: "string" }] },
        mixed: { anyOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "array", items: { type: "string" } }] },
      },
    });
    expect(lean.properties).toEqual({
      priority: { type: "string", enum: ["low", "high"], description: "Dequeue priority." },
      correlation_id: { type: ["string", "null"] },
      limit: { type: "integer" },
      ready: { type: "boolean" },
      mixed: { anyOf: [{ type: "object", properties: { a: { type: "string" } } }, { type: "array", items: { type: "string" } }] },
    });
  });

  it("drops a description that only restates the argument's name, and keeps a map's value schema", () => {
    const lean = leanInputSchema({
      type: "object",
      properties: {
        message_id: { type: "string", description: "ULID of the message." },
        lesson_id: { type: "string", description: "ULID of the lesson (active)." },
        attributes: { type: "object", additionalProperties: { type: "string", maxLength: 10 } },
        headers: { type: "object", patternProperties: { "^x-": { type: "string" } } },
      },
    });
    expect(lean.properties).toEqual({
      message_id: { type: "string" },
      lesson_id: { type: "string", description: "ULID of the lesson (active)." },
      attributes: { type: "object", additionalProperties: { type: "string" } },
      headers: { type: "object", additionalProperties: { type: "string" } },
    });
  });
});

describe("dropConventionDescriptions", () => {
  it("leaves out a conventional argument's description shared by three tools, and keeps a tool's own meaning of the name", () => {
    const shared = "next_cursor of the previous page.";
    const schemas = [0, 1, 2].map(() => ({ type: "object", properties: { cursor: { type: "string", description: shared }, q: { type: "string", description: "Words." } } }));
    const own = { type: "object", properties: { project_id: { type: "string", description: "Restricts reads to that project." } } };
    const twice = [0, 1].map(() => ({ type: "object", properties: { limit: { type: "integer", description: "Page size." } } }));
    dropConventionDescriptions([...schemas, own, ...twice]);
    for (const s of schemas) expect(s.properties).toEqual({ cursor: { type: "string" }, q: { type: "string", description: "Words." } });
    expect(own.properties.project_id.description).toBe("Restricts reads to that project.");
    for (const s of twice) expect(s.properties.limit.description).toBe("Page size.");
  });
});

describe("leanOutputSchema", () => {
  const output = {
    type: "object",
    description: "A message.",
    required: ["message_id", "state", "lease", "items", "note"],
    properties: {
      message_id: { type: "string", description: "ULID." },
      state: { anyOf: [{ const: "pending", type: "string" }, { const: "acked", type: "string" }] },
      lease: { type: "object", required: ["lease_id"], properties: { lease_id: { type: "string" } } },
      items: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
      note: { anyOf: [{ type: "string" }, { type: "null" }] },
      count: { type: "integer", minimum: 0 },
    },
  };

  it("lists the success result's fields with their types, one level deep, with no descriptions and nothing required", () => {
    expect(leanOutputSchema(output)).toEqual({
      type: "object",
      properties: {
        message_id: { type: "string" },
        state: { type: "string" },
        lease: { type: "object" },
        items: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
        note: { type: ["string", "null"] },
        count: { type: "integer" },
      },
    });
    expect(leanOutputSchema({ type: "array", items: { type: "string" } })).toBeNull();
  });

  it("accepts every result the full schema accepts, and the error envelope (clients that check isError results against it, typescript-sdk#1943)", () => {
    const ajv = new Ajv({ strict: false });
    const lean = ajv.compile(leanOutputSchema(output)!);
    const full = ajv.compile(output);
    const result = { message_id: "m", state: "acked", lease: { lease_id: "l" }, items: [{ id: "a" }], note: null, count: 2 };
    expect(full(result)).toBe(true);
    expect(lean(result)).toBe(true);
    expect(lean({ error: { code: "SVC_RESOURCE_NOT_FOUND", message: "x" }, request_id: "r" })).toBe(true);
    expect(lean({ message_id: 7 })).toBe(false);
  });
});
