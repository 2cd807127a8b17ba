import { OPERATIONS } from "@agentq/core";
import { createInMemoryDeps } from "@agentq/core/testing";
import { describe, expect, it } from "vitest";
import { createRestApp } from "./app.ts";
import { TEST_OPERATIONS } from "./testing/test-operations.ts";

const ULID = "01JAAAAAAAAAAAAAAAAAAAAAAA";

function fill(path: string): string {
  return path.replace(/\{[^}]+\}/g, ULID);
}

describe("routes derived from the real catalogue", () => {
  const app = createRestApp(createInMemoryDeps().deps);

  it("serves every catalogue operation at its method and path (no 404, no 405)", async () => {
    expect(OPERATIONS.length).toBeGreaterThan(20);
    for (const op of OPERATIONS) {
      const res = await app.request(fill(op.http.path), { method: op.http.method });
      // A public operation may succeed without input (sign-out without a session: 204, no body).
      const body = (res.status === 204 ? {} : await res.json()) as { error?: { code: string } };
      // Without a credential every non-public operation is refused by authentication: the route exists.
      if (op.auth.kind !== "public") expect(body.error?.code, `${op.name}`).toBe("SVC_UNAUTHENTICATED");
      // A public operation answers for itself: a refusal of the (empty) input or the unknown id, never routing's.
      else expect(["SVC_ROUTE_NOT_FOUND", "SVC_METHOD_NOT_ALLOWED"], op.name).not.toContain(body.error?.code);
    }
  });

  it("documents every catalogue operation in the OpenAPI document", async () => {
    const doc = (await (await app.request("/v1/openapi.json")).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    for (const op of OPERATIONS) expect(doc.paths[op.http.path]?.[op.http.method.toLowerCase()]?.operationId, op.name).toBe(op.name);
  });

  it("refuses a catalogue with two operations on one route", () => {
    const [first] = TEST_OPERATIONS;
    if (first === undefined) throw new Error("no test operations");
    expect(() => createRestApp(createInMemoryDeps().deps, { operations: [first, { ...first, name: "other", http: { ...first.http, path: first.http.path.replace("{item_id}", "{other_id}") } }] })).toThrow(/share the route/);
  });
});
