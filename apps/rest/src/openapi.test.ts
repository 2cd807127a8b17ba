import { PersonSchema } from "@agentq/core";
import { createInMemoryDeps } from "@agentq/core/testing";
import { describe, expect, it } from "vitest";
import { createRestApp } from "./app.ts";
import { createTestApp } from "./testing/test-app.ts";
import { TEST_OPERATIONS } from "./testing/test-operations.ts";

interface Doc {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; security?: unknown[]; parameters?: { name: string; in: string; required: boolean }[]; requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required: string[] } }> }; responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }> }>>;
  components: { securitySchemes: Record<string, { type: string; scheme: string }>; schemas: Record<string, unknown> };
  security: unknown[];
}

async function fetchDoc(): Promise<{ res: Response; doc: Doc }> {
  const { app } = createTestApp();
  const res = await app.request("/v1/openapi.json");
  return { res, doc: (await res.json()) as Doc };
}

describe("GET /v1/openapi.json", () => {
  it("needs no credential and is OpenAPI 3.1 with the bearer scheme and the session cookie", async () => {
    const { res, doc } = await fetchDoc();
    expect(res.status).toBe(200);
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: "http", scheme: "bearer" }));
    expect(doc.components.securitySchemes.sessionCookie).toEqual(expect.objectContaining({ type: "apiKey", in: "cookie", name: "__Host-agentq_session" }));
    expect(doc.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    expect(doc.components.schemas.ErrorEnvelope).toBeDefined();
  });

  it("documents a browser's sign-in from the catalogue: the anonymous steps need nothing, the session's steps the session cookie", async () => {
    const app = createRestApp(createInMemoryDeps().deps);
    const doc = (await (await app.request("/v1/openapi.json")).json()) as Doc;
    for (const path of ["/v1/auth/sign-up", "/v1/auth/verify-email", "/v1/auth/sign-in", "/v1/auth/sign-out", "/v1/auth/mfa/verify", "/v1/auth/password-reset", "/v1/auth/password-reset/confirm"]) expect(doc.paths[path]?.post?.security, path).toEqual([]);
    for (const path of ["/v1/auth/mfa/totp/enroll", "/v1/auth/mfa/totp/confirm", "/v1/auth/step-up"]) expect(doc.paths[path]?.post?.security, path).toEqual([{ sessionCookie: [] }]);
    expect(doc.paths["/v1/auth/sign-up"]?.post?.requestBody?.content?.["application/json"]?.schema?.required).toEqual(["email", "password", "workspace_name"]);
    expect(doc.paths["/v1/auth/sign-up"]?.post?.responses["202"]).toBeDefined();
    expect(doc.paths["/v1/auth/verify-email"]?.post?.requestBody?.content?.["application/json"]?.schema?.required).toEqual(["token"]);
    expect(doc.paths["/v1/auth/verify-email"]?.post?.responses["201"]).toBeDefined();
    expect(doc.paths["/v1/auth/password-reset/confirm"]?.post?.responses["204"]).toEqual({ description: "Success (no body)." });
    expect(doc.paths["/v1/auth/sign-out"]?.post?.responses["204"]).toEqual({ description: "Success (no body)." });
    expect(doc.paths["/v1/auth/sign-out"]?.post?.requestBody).toBeUndefined();
  });

  it("lists every operation and the two plain routes at their method and path", async () => {
    const { doc } = await fetchDoc();
    for (const op of TEST_OPERATIONS) expect(doc.paths[op.http.path]?.[op.http.method.toLowerCase()]?.operationId).toBe(op.name);
    expect(doc.paths["/v1/version"]?.get?.security).toEqual([]);
    expect(doc.paths["/v1/openapi.json"]?.get?.security).toEqual([]);
    expect(doc.paths["/v1/test/public"]?.get?.security).toEqual([]);
  });

  it("splits each input into path, query and header parameters and a body schema", async () => {
    const { doc } = await fetchDoc();
    const echo = doc.paths["/v1/test/items/{item_id}/echo"]?.post;
    expect(echo?.parameters?.map((p) => [p.name, p.in, p.required])).toEqual([["item_id", "path", true], ["mode", "query", false], ["Idempotency-Key", "header", false]]);
    const body = echo?.requestBody?.content["application/json"]?.schema;
    expect(Object.keys(body?.properties ?? {}).sort()).toEqual(["nested", "note"]);
    expect(echo?.responses["201"]?.content?.["application/json"]?.schema).toEqual(expect.objectContaining({ type: "object" }));
    for (const status of ["400", "401", "403", "409", "413", "415", "429", "503"]) expect(echo?.responses[status]?.$ref).toBe("#/components/responses/Error");
    const admin = doc.paths["/v1/test/items/{item_id}/freeze"]?.post;
    expect(admin?.parameters?.find((p) => p.name === "Idempotency-Key")?.required).toBe(true);
    const list = doc.paths["/v1/test/items"]?.get;
    expect(list?.parameters?.map((p) => p.name)).toEqual(["limit", "cursor", "state"]);
    expect(list?.requestBody).toBeUndefined();
  });

  it("documents the people's operations from the catalogue: the session cookie, the roles, the core's person schema", async () => {
    const app = createRestApp(createInMemoryDeps().deps);
    const doc = (await (await app.request("/v1/openapi.json")).json()) as Doc;
    const list = doc.paths["/v1/people"]?.get as unknown as Record<string, any>;
    expect(list.operationId).toBe("list_people");
    expect(list.security).toEqual([{ sessionCookie: [] }]);
    expect(list["x-agentq-roles"]).toEqual(["owner", "admin"]);
    // The person of the people list is the core's PersonSchema and password_set, one schema (no hand-written copy).
    const person = list.responses["200"].content["application/json"].schema.properties.items.items;
    expect(Object.keys(person.properties).sort()).toEqual([...Object.keys(PersonSchema.properties), "password_set"].sort());
    expect(doc.paths["/v1/people/{person_id}"]?.delete?.responses["204"]).toEqual({ description: "Success (no body)." });
    expect(doc.paths["/v1/people"]?.post?.requestBody?.content["application/json"]?.schema.required).toEqual(["email", "role"]);
  });

  it("carries no TypeBox internals", async () => {
    const { app } = createTestApp();
    const text = await (await app.request("/v1/openapi.json")).text();
    expect(text).not.toMatch(/TypeBox|Symbol\(/);
  });
});

describe("GET /v1/version", () => {
  it("needs no credential and names the build", async () => {
    const { app } = createTestApp();
    const res = await app.request("/v1/version");
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({ name: "agentq", version: expect.stringMatching(/^\d+\.\d+\.\d+/) as unknown, node: process.versions.node });
  });
});
