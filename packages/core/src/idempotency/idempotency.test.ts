import { describe, expect, it } from "vitest";
import { isDomainError, type ErrorCode } from "../errors.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { callContext, seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { canonicalJson } from "./canonical-json.ts";
import { requestFingerprint } from "./request-fingerprint.ts";
import { runIdempotent } from "./run-idempotent.ts";

async function codeOf(p: Promise<unknown>): Promise<ErrorCode> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  throw new Error("expected a DomainError");
}

describe("canonical JSON and request fingerprints", () => {
  it("sorts keys at every depth, keeps array order, drops undefined", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined }, e: null })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1,"e":null}');
    expect(canonicalJson("x\u2028")).toBe(JSON.stringify("x\u2028"));
  });

  it("fingerprints equal for the same request whatever the key order, different for another body, method or path", () => {
    const a = requestFingerprint({ method: "POST", path: "/v1/messages/send", body: { x: 1, y: [1, 2] } });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(requestFingerprint({ method: "post", path: "/v1/messages/send", body: { y: [1, 2], x: 1 } })).toBe(a);
    expect(requestFingerprint({ method: "POST", path: "/v1/messages/send", body: { x: 1, y: [2, 1] } })).not.toBe(a);
    expect(requestFingerprint({ method: "POST", path: "/v1/messages/validate", body: { x: 1, y: [1, 2] } })).not.toBe(a);
    expect(requestFingerprint({ method: "PUT", path: "/v1/messages/send", body: { x: 1, y: [1, 2] } })).not.toBe(a);
  });
});

describe("runIdempotent", () => {
  async function setup() {
    const world = createInMemoryDeps();
    const principal = await seedPrincipal(world.deps.stores, await seedTestWorkspace(world.deps.stores));
    return { world, principal };
  }

  it("runs once per key: the replay returns the stored status and body without running again", async () => {
    const { world, principal } = await setup();
    let runs = 0;
    const ctx = callContext(principal, { idempotencyKey: "k", fingerprint: "f1" });
    const fn = async () => ({ status: 201, body: { run: ++runs, at: new Date(0) } });
    const first = await runIdempotent(world.deps, ctx, fn);
    expect(first).toEqual({ status: 201, body: { run: 1, at: "1970-01-01T00:00:00.000Z" } });
    expect(await runIdempotent(world.deps, { ...ctx, requestId: "r2" }, fn)).toEqual(first);
    expect(runs).toBe(1);
    const conflict = runIdempotent(world.deps, callContext(principal, { idempotencyKey: "k", fingerprint: "f2" }), fn);
    expect(await codeOf(conflict)).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("concurrent calls with one key run once and all get the first response", async () => {
    const { world, principal } = await setup();
    let runs = 0;
    const ctx = callContext(principal, { idempotencyKey: "c", fingerprint: "f" });
    const results = await Promise.all(Array.from({ length: 6 }, () => runIdempotent(world.deps, ctx, async () => ({ status: 200, body: { run: ++runs } }))));
    expect(runs).toBe(1);
    expect(results.every((r) => r.status === 200 && (r.body as { run: number }).run === 1)).toBe(true);
  });

  it("a failing call rolls back its writes and leaves the key unspent; without a key it just runs in a transaction", async () => {
    const { world, principal } = await setup();
    const ctx = callContext(principal, { idempotencyKey: "fail", fingerprint: "f" });
    await expect(runIdempotent(world.deps, ctx, async (stores) => {
      await stores.accounts.transition({ workspaceId: principal.workspace.id, accountId: principal.account.id, from: ["active"], to: "frozen", now: new Date() });
      throw new Error("boom");
    })).rejects.toThrow("boom");
    expect((await world.deps.stores.accounts.findById({ workspaceId: principal.workspace.id, accountId: principal.account.id }))?.state).toBe("active");
    expect(await runIdempotent(world.deps, ctx, async () => ({ status: 200, body: { ok: true } }))).toEqual({ status: 200, body: { ok: true } });
    expect(await runIdempotent(world.deps, callContext(principal), async () => ({ status: 200, body: 1 }))).toEqual({ status: 200, body: 1 });
  });

  it("forgets keys after 24 hours", async () => {
    const { world, principal } = await setup();
    const ctx = callContext(principal, { idempotencyKey: "old", fingerprint: "f" });
    await runIdempotent(world.deps, ctx, async () => ({ status: 200, body: 1 }));
    world.clock.advance(24 * 3600_000 + 1);
    expect(await runIdempotent(world.deps, callContext(principal, { idempotencyKey: "old", fingerprint: "other" }), async () => ({ status: 200, body: 2 }))).toEqual({ status: 200, body: 2 });
  });
});
