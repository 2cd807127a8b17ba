import { OPERATIONS } from "@agentq/core";
import { createInMemoryDeps } from "@agentq/core/testing";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createRestApp } from "./app.ts";

// The document the running API serves, over the real catalogue, is a valid OpenAPI 3.1
// document (checked against the official schema), so client generators can consume it.
describe("GET /v1/openapi.json over the real catalogue", () => {
  it("validates against the OpenAPI 3.1 schema and lists every operation", async () => {
    const app = createRestApp(createInMemoryDeps().deps);
    const res = await app.request("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, { operationId: string }>> };
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const ids = Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((m) => m.operationId));
    for (const op of OPERATIONS) expect(ids).toContain(op.name);
  });
});
