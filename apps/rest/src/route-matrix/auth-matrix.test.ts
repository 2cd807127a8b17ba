import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES, OPERATIONS, TIERS } from "@agentq/core";
import type { Operation, Tier } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps, seedAccount, seedTokenCredential } from "@agentq/core/testing";
import type { InMemoryWorld } from "@agentq/core/testing";
import { Value } from "@sinclair/typebox/value";
import type { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { createRestApp } from "../app.ts";
import type { RestEnv } from "../rest-env.ts";
import { recordingLogger } from "../testing/test-app.ts";
import { callOperationRoute, NOWHERE_ULID, pathParamsOf } from "../testing/matrix/route-request.ts";

// Catalogue-driven: every operation that takes a credential, whatever area added it, gets the
// refusals of issue 3 (no credential, wrong tier, missing scope), and every operation for a
// person's session refuses a caller without one. Nothing here names a route.

type CredentialAuth = Extract<Operation["auth"], { kind: "credential" }>;
const CREDENTIAL_OPERATIONS = OPERATIONS.filter((op): op is Operation & { auth: CredentialAuth } => op.auth.kind === "credential");
const PERSON_OPERATIONS = OPERATIONS.filter((op) => op.auth.kind === "person");
const TIER_RANK: Readonly<Record<Tier, number>> = { operational: 0, administrative: 1 };
const SCOPES_OF_TIER: Readonly<Record<Tier, readonly string[]>> = { operational: OPERATIONAL_SCOPES, administrative: ADMINISTRATIVE_SCOPES };
const REFUSAL_CODES = ["SVC_UNAUTHENTICATED", "SVC_TIER_INSUFFICIENT", "SVC_SCOPE_INSUFFICIENT"];

/** Whether the auth rule waives its scope for a credential of `tier` (authorize.ts). */
function scopeWaivedFor(auth: CredentialAuth, tier: Tier): boolean {
  return auth.scopeWaivedForTier !== undefined && TIER_RANK[tier] >= TIER_RANK[auth.scopeWaivedForTier];
}

/** Path values naming nothing (valid ULIDs), for every parameter of `op`. */
function nowhere(op: Operation): Record<string, string> {
  return Object.fromEntries(pathParamsOf(op).map((p) => [p, NOWHERE_ULID]));
}

let world: InMemoryWorld;
let app: Hono<RestEnv>;
let workspaceId: string;
let accountId: string;
const tokens = new Map<string, string>();

/** The Authorization header of a credential of `tier` carrying exactly `scopes` (seeded once per set). */
async function credential(tier: Tier, scopes: readonly string[]): Promise<string> {
  const k = `${tier}:${[...scopes].sort().join(",")}`;
  let authorization = tokens.get(k);
  if (authorization === undefined) {
    ({ authorization } = await seedTokenCredential(world, { id: accountId, workspaceId }, { tier, scopes: [...scopes], name: k.slice(0, 60) }));
    tokens.set(k, authorization);
  }
  return authorization;
}

beforeAll(async () => {
  world = createInMemoryDeps();
  app = createRestApp(world.deps, { logger: recordingLogger() });
  const ws = await bootstrapScenarioWorkspace(world, "matrix");
  workspaceId = ws.workspace_id;
  accountId = (await seedAccount(world, workspaceId, { friendlyName: "matrix-agent" })).id;
});

describe("auth matrix over the whole catalogue", () => {
  it("covers every operation that is not public", () => {
    expect(CREDENTIAL_OPERATIONS.length).toBeGreaterThan(0);
    expect(CREDENTIAL_OPERATIONS.length + PERSON_OPERATIONS.length).toBe(OPERATIONS.filter((op) => op.auth.kind !== "public").length);
    for (const op of CREDENTIAL_OPERATIONS) {
      expect(TIERS, op.name).toContain(op.auth.tier);
      // A scope the route's own tier cannot be issued would make the route unreachable.
      if (op.auth.scope !== null) expect(SCOPES_OF_TIER[op.auth.tier], `${op.name} gates on a scope its tier cannot carry`).toContain(op.auth.scope);
    }
  });

  describe.each(CREDENTIAL_OPERATIONS.map((op) => [`${op.http.method} ${op.http.path} (${op.name})`, op] as const))("%s", (_label, op) => {
    it("answers 401 SVC_UNAUTHENTICATED in the envelope without a credential, and with an unknown one", async () => {
      for (const authorization of [undefined, "Bearer agq_op_not-a-real-token", "Basic bWU6cHc="]) {
        const res = await callOperationRoute(app, op, { ...(authorization === undefined ? {} : { authorization }), pathValues: nowhere(op) });
        expect(res.status, `${op.name} with ${authorization ?? "no Authorization"}: ${res.text}`).toBe(401);
        expect(res.body).toEqual({ error: expect.objectContaining({ code: "SVC_UNAUTHENTICATED", message: expect.any(String) }), request_id: res.headers.get("x-request-id") });
        expect(res.headers.get("cache-control")).toBe("no-store");
      }
    });

    if (op.auth.tier === "administrative") {
      it("answers 403 SVC_TIER_INSUFFICIENT to an operational credential carrying every operational scope", async () => {
        const res = await callOperationRoute(app, op, { authorization: await credential("operational", OPERATIONAL_SCOPES), pathValues: nowhere(op) });
        expect(res.status, res.text).toBe(403);
        expect(res.body.error.code).toBe("SVC_TIER_INSUFFICIENT");
        expect(res.body.request_id).toBe(res.headers.get("x-request-id"));
      });
    }

    const scope = op.auth.scope;
    if (scope !== null && !scopeWaivedFor(op.auth, op.auth.tier)) {
      it(`answers 403 SVC_SCOPE_INSUFFICIENT to a ${op.auth.tier} credential carrying every ${op.auth.tier} scope but ${scope}`, async () => {
        const others = SCOPES_OF_TIER[op.auth.tier].filter((s) => s !== scope);
        const res = await callOperationRoute(app, op, { authorization: await credential(op.auth.tier, others), pathValues: nowhere(op) });
        expect(res.status, res.text).toBe(403);
        expect(res.body.error.code).toBe("SVC_SCOPE_INSUFFICIENT");
      });
    }

    // Higher tiers pass lower-tier routes only with the route's scope, unless the rule waives it.
    for (const tier of TIERS.filter((t) => TIER_RANK[t] > TIER_RANK[op.auth.tier])) {
      if (scope === null) continue;
      if (scopeWaivedFor(op.auth, tier)) {
        it(`lets a scopeless ${tier} credential through (scope ${scope} waived for ${tier})`, async () => {
          const res = await callOperationRoute(app, op, { authorization: await credential(tier, []), pathValues: nowhere(op) });
          expect(REFUSAL_CODES, res.text).not.toContain(res.body?.error?.code);
        });
      } else {
        it(`answers 403 SVC_SCOPE_INSUFFICIENT to a ${tier} credential carrying every ${tier} scope (not ${scope})`, async () => {
          const res = await callOperationRoute(app, op, { authorization: await credential(tier, SCOPES_OF_TIER[tier].filter((s) => s !== scope)), pathValues: nowhere(op) });
          expect(res.status, res.text).toBe(403);
          expect(res.body.error.code).toBe("SVC_SCOPE_INSUFFICIENT");
        });
      }
    }

    if (scope === null || scopeWaivedFor(op.auth, op.auth.tier)) {
      it(`lets a scopeless ${op.auth.tier} credential through (the route names no scope it needs)`, async () => {
        const res = await callOperationRoute(app, op, { authorization: await credential(op.auth.tier, []), pathValues: nowhere(op) });
        expect(REFUSAL_CODES, res.text).not.toContain(res.body?.error?.code);
      });
    }
  });
});

describe("auth matrix over the catalogue's operations for a person's session", () => {
  it("has some", () => {
    expect(PERSON_OPERATIONS.length).toBeGreaterThan(0);
  });

  describe.each(PERSON_OPERATIONS.map((op) => [`${op.http.method} ${op.http.path} (${op.name})`, op] as const))("%s", (_label, op) => {
    // A valid input (the checks of the input come before the caller's rule, as the people's routes always had it).
    const input = Object.fromEntries(Object.entries(Value.Create(op.input) as Record<string, unknown>).filter(([k]) => !pathParamsOf(op).includes(k)));

    it("answers 401 SVC_UNAUTHENTICATED in the envelope without a session, and with an unknown credential", async () => {
      for (const authorization of [undefined, "Bearer agq_op_not-a-real-token"]) {
        const res = await callOperationRoute(app, op, { ...(authorization === undefined ? {} : { authorization }), pathValues: nowhere(op), input });
        expect(res.status, `${op.name} with ${authorization ?? "no Authorization"}: ${res.text}`).toBe(401);
        expect(res.body).toEqual({ error: expect.objectContaining({ code: "SVC_UNAUTHENTICATED", message: expect.any(String) }), request_id: res.headers.get("x-request-id") });
        expect(res.headers.get("cache-control")).toBe("no-store");
      }
    });

    it("answers 403 SVC_TIER_INSUFFICIENT to a credential, even an administrative one with every scope (a person's session only)", async () => {
      const res = await callOperationRoute(app, op, { authorization: await credential("administrative", ADMINISTRATIVE_SCOPES), pathValues: nowhere(op), input });
      expect(res.status, res.text).toBe(403);
      expect(res.body.error).toMatchObject({ code: "SVC_TIER_INSUFFICIENT", details: { required: "session" } });
    });
  });
});
