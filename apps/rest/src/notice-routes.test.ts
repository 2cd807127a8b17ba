import { bootstrapScenarioWorkspace, createInMemoryDeps, type InMemoryWorld } from "@agentq/core/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { createRestApp } from "./app.ts";
import { call } from "./testing/call.ts";
import { recordingLogger } from "./testing/test-app.ts";

// The notices' public routes at the REST edge: the Notice-Token header as input, an optional
// credential, the per-address limit with Retry-After, text only, and their OpenAPI entries.
const NOTICE = {
  kind: "dsa",
  category: "scams_and_fraud",
  explanation: "A fake invoice.",
  locations: [{ type: "url", url: "https://example.org/invoice" }],
  notifier: { name: "Nora", email: "nora@example.org" },
  good_faith_statement: true,
};

let world: InMemoryWorld;
let app: ReturnType<typeof createRestApp>;
beforeEach(() => {
  world = createInMemoryDeps();
  app = createRestApp(world.deps, { logger: recordingLogger() });
});

describe("notice routes", () => {
  it("takes the status token from the Notice-Token header only, and answers a bad credential with 401", async () => {
    const created = await call(app, "POST", "/v1/notices", { body: NOTICE });
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const { notice, status_token } = created.body as { notice: { id: string }; status_token: string };
    const mine = await call(app, "GET", `/v1/notices/${notice.id}`, { headers: { "Notice-Token": status_token } });
    expect(mine.body).toMatchObject({ id: notice.id, submission: { kind: "dsa" } });
    // A token in the body is not the header: supplement needs the header.
    const inBody = await call(app, "POST", `/v1/notices/${notice.id}/supplement`, { body: { text: "more", notice_token: status_token } });
    expect(inBody.status).toBe(400);
    expect(inBody.body.error.code).toBe("SVC_MALFORMED_REQUEST");
    const ok = await call(app, "POST", `/v1/notices/${notice.id}/supplement`, { body: { text: "more" }, headers: { "Notice-Token": status_token } });
    expect(ok.status).toBe(200);
    const badCredential = await call(app, "GET", `/v1/notices/${notice.id}`, { authorization: "Bearer agq_ad_not-a-real-token" });
    expect(badCredential.status).toBe(401);
    expect(badCredential.body.error.code).toBe("SVC_UNAUTHENTICATED");
    const ws = await bootstrapScenarioWorkspace(world, "viewer");
    const asAdmin = await call(app, "GET", `/v1/notices/${notice.id}`, { authorization: ws.authorization });
    expect(Object.keys(asAdmin.body).sort()).toEqual(["id", "kind", "received_at", "state", "updated_at"]);
  });

  it("limits the intake per client address: 429 SVC_RATE_LIMITED with Retry-After", async () => {
    for (let i = 0; i < 5; i++) expect((await call(app, "POST", "/v1/notices", { body: NOTICE })).status).toBe(201);
    const refused = await call(app, "POST", "/v1/notices", { body: NOTICE });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("SVC_RATE_LIMITED");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("refuses bidirectional overrides and unknown fields (no attachments) with 400, and a missing element by name", async () => {
    const bidi = await call(app, "POST", "/v1/notices", { body: { ...NOTICE, explanation: "invoice\u202Efdp.exe" } });
    expect(bidi.status).toBe(400);
    expect(bidi.body.error.details).toMatchObject({ reason: "control_or_bidi_character" });
    const attachment = await call(app, "POST", "/v1/notices", { body: { ...NOTICE, attachments: [{ name: "a.pdf", data: "JVBERi0=" }] } });
    expect(attachment.status).toBe(400);
    const { explanation: _e, ...missing } = NOTICE;
    const named = await call(app, "POST", "/v1/notices", { body: missing });
    expect(named.body.error.details.missing_elements).toEqual(["explanation"]);
  });

  it("documents the header input, the optional credential and the intake's 429 in OpenAPI", async () => {
    const doc = (await call(app, "GET", "/v1/openapi.json")).body as { paths: Record<string, Record<string, { security?: unknown[]; parameters?: { name: string; in: string }[]; responses: Record<string, unknown> }>> };
    const get = doc.paths["/v1/notices/{notice_id}"]?.get;
    expect(get?.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "Notice-Token", in: "header" })]));
    expect(get?.security).toEqual([{}, { bearerAuth: [] }]);
    expect(Object.keys(doc.paths["/v1/notices"]?.post?.responses ?? {})).toContain("429");
    expect(doc.paths["/v1/notices/intake"]?.get?.security).toEqual([]);
    expect(Object.keys(doc.paths["/v1/messages/{message_id}"]?.get?.responses ?? {})).toContain("451");
  });
});
