import { beforeEach, describe, expect, it, vi } from "vitest";
import type { CredentialPrincipal } from "../access/model.ts";
import { isDomainError } from "../errors.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { createInMemoryDeps, type InMemoryWorld } from "../testing/create-in-memory-deps.ts";
import { callContext, seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { DAY_MS } from "../time/duration.ts";
import { claimMessages } from "./claim-messages.ts";
import { RECIPIENT_CACHE_TTL_MS } from "./recipient-cache.ts";
import type { SendMessageInput } from "./prepare-send.ts";
import { sendMessage } from "./send-message.ts";
import { validateMessage } from "./validate-message.ts";

const directive = { directive_kind: "task", summary: "Build it", instructions: "All of it." };

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  throw new Error("expected a DomainError");
}

describe("sendMessage and validateMessage", () => {
  let world: InMemoryWorld;
  let alice: CredentialPrincipal;
  let bob: CredentialPrincipal;
  let outsider: CredentialPrincipal;

  beforeEach(async () => {
    world = createInMemoryDeps();
    const ws = await seedTestWorkspace(world.deps.stores);
    alice = await seedPrincipal(world.deps.stores, ws, { friendlyName: "alice" });
    bob = await seedPrincipal(world.deps.stores, ws, { friendlyName: "bob" });
    outsider = await seedPrincipal(world.deps.stores, await seedTestWorkspace(world.deps.stores), { friendlyName: "carol" });
  });

  const body = (overrides: Partial<SendMessageInput["envelope"]> = {}, payload: unknown = directive): SendMessageInput => ({ envelope: { recipient: { friendly_name: "bob" }, template: "directive", ...overrides }, payload });
  const ctxFor = (input: SendMessageInput, key: string | null = `k-${Math.random()}`, path = "/v1/messages/send") => callContext(alice, { idempotencyKey: key, fingerprint: requestFingerprint({ method: "POST", path, body: input }) });

  it("sends: 201 with the exact response shape; the recipient can claim it with the sender from the credential", async () => {
    const input = body({ priority: "high", correlation_id: "c-1" });
    const r = await sendMessage(world.deps, ctxFor(input), input);
    expect(r.status).toBe(201);
    const now = world.clock.now();
    expect(r.body).toEqual({ message_id: (expect.any(String) as string), state: "pending", accepted_at: now.toISOString(), expires_at: new Date(now.getTime() + 7 * DAY_MS).toISOString(), recipient: { ai_account_id: bob.account.id, friendly_name: "bob" }, thread_id: (r.body as { message_id: string }).message_id });
    const { items } = await claimMessages(world.deps, callContext(bob), {});
    expect(items).toHaveLength(1);
    expect(items[0]?.envelope).toMatchObject({ message_id: (r.body as { message_id: string }).message_id, sender: { ai_account_id: alice.account.id, friendly_name: "alice" }, priority: "high", correlation_id: "c-1", delivery_count: 1, template: "directive" });
    expect(items[0]?.payload).toEqual(directive);
  });

  it("replays the same key and body with the original status and body, byte for byte", async () => {
    const input = body();
    const ctx = ctxFor(input, "same-key");
    const first = await sendMessage(world.deps, ctx, input);
    world.clock.advance(1000);
    const again = await sendMessage(world.deps, { ...ctx, requestId: "req-again" }, input);
    expect(again.status).toBe(201);
    expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
    expect((await claimMessages(world.deps, callContext(bob), { max: 10 })).items).toHaveLength(1);
  });

  it("a key reused with another body or on another endpoint is SVC_IDEMPOTENCY_CONFLICT naming the original request", async () => {
    const input = body();
    const ctx = ctxFor(input, "k1");
    await sendMessage(world.deps, ctx, input);
    const other = body({ priority: "low" });
    try {
      await sendMessage(world.deps, ctxFor(other, "k1"), other);
      throw new Error("expected a conflict");
    } catch (e) {
      expect(isDomainError(e) && e.code).toBe("SVC_IDEMPOTENCY_CONFLICT");
      expect(isDomainError(e) && e.details).toEqual({ original_request_id: ctx.requestId });
    }
    expect(await codeOf(sendMessage(world.deps, ctxFor(input, "k1", "/v1/other"), input))).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("two concurrent sends with one key execute once; the second gets the first's response", async () => {
    const input = body();
    const ctx = ctxFor(input, "concurrent");
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => sendMessage(world.deps, { ...ctx, requestId: `r${i}` }, input)));
    const bodies = new Set(results.map((r) => JSON.stringify(r.body)));
    expect(bodies.size).toBe(1);
    expect((await claimMessages(world.deps, callContext(bob), { max: 10 })).items).toHaveLength(1);
  });

  it("replays a stored key even when the recipient is gone since", async () => {
    const input = body();
    const ctx = ctxFor(input, "before-revoke");
    const first = await sendMessage(world.deps, ctx, input);
    await world.deps.stores.accounts.transition({ workspaceId: bob.workspace.id, accountId: bob.account.id, from: ["active"], to: "revoked", now: world.clock.now() });
    expect((await sendMessage(world.deps, ctx, input)).body).toEqual(first.body);
    expect(await codeOf(sendMessage(world.deps, ctxFor(input, "after-revoke"), input))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
  });

  it("refuses unknown, revoked and other-workspace recipients with SVC_RECIPIENT_RESOLUTION_FAILED", async () => {
    expect(await codeOf(sendMessage(world.deps, ctxFor(body()), body({ recipient: { friendly_name: "nobody" } })))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
    expect(await codeOf(sendMessage(world.deps, ctxFor(body()), body({ recipient: { friendly_name: "carol" } })))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
    expect(await codeOf(validateMessage(world.deps, callContext(outsider), body()))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
  });

  it("reads a recipient's resolution once per cache period, and a cached one never misdirects a message", async () => {
    const reads = vi.spyOn(world.deps.stores.accounts, "findAddressable");
    const send = (name: string) => sendMessage(world.deps, ctxFor(body({ recipient: { friendly_name: name } })), body({ recipient: { friendly_name: name } }));
    expect((await send("bob")).status).toBe(201);
    expect((await send("bob")).status).toBe(201);
    expect(reads).toHaveBeenCalledTimes(1);
    world.clock.advance(RECIPIENT_CACHE_TTL_MS);
    expect((await send("bob")).status).toBe(201);
    expect(reads).toHaveBeenCalledTimes(2);

    // bob becomes robert, and a new account takes the name bob: "bob" is the new account at once.
    await world.deps.stores.accounts.rename({ workspaceId: bob.workspace.id, accountId: bob.account.id, friendlyName: "robert", now: world.clock.now() });
    const newBob = await seedPrincipal(world.deps.stores, alice.workspace, { friendlyName: "bob" });
    expect((await send("bob")).body).toMatchObject({ recipient: { ai_account_id: newBob.account.id, friendly_name: "bob" } });
    expect((await send("robert")).body).toMatchObject({ recipient: { ai_account_id: bob.account.id, friendly_name: "robert" } });
    expect((await claimMessages(world.deps, callContext(newBob), {})).items).toHaveLength(1);
    expect((await claimMessages(world.deps, callContext(bob), {})).items).toHaveLength(4);

    // Revoked while cached: refused, nothing stored.
    await world.deps.stores.accounts.transition({ workspaceId: newBob.workspace.id, accountId: newBob.account.id, from: ["active"], to: "revoked", now: world.clock.now() });
    expect(await codeOf(send("bob"))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
    expect((await claimMessages(world.deps, callContext(newBob), {})).items).toEqual([]);
  });

  it("validate resolves afresh: it never answers from the send's cache", async () => {
    expect((await sendMessage(world.deps, ctxFor(body()), body())).status).toBe(201);
    await world.deps.stores.accounts.transition({ workspaceId: bob.workspace.id, accountId: bob.account.id, from: ["active"], to: "revoked", now: world.clock.now() });
    expect(await codeOf(validateMessage(world.deps, callContext(alice), body()))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
  });

  it.each([
    ["an unknown template", body({ template: "nope" }), "envelope.template"],
    ["a bad priority", body({ priority: "asap" }), "envelope.priority"],
    ["a long correlation_id", body({ correlation_id: "x".repeat(129) }), "envelope.correlation_id"],
    ["a ttl over P14D", body({ ttl: "P15D" }), "envelope.ttl"],
    ["a ttl under PT1S", body({ ttl: "PT0S" }), "envelope.ttl"],
    ["a ttl that is not a duration", body({ ttl: "7 days" }), "envelope.ttl"],
    ["deliver_after not shorter than ttl", body({ ttl: "PT1H", deliver_after: "PT1H" }), "envelope.deliver_after"],
    ["a payload missing a field", body({}, { directive_kind: "k", summary: "s" }), "payload"],
    ["a payload with a wrong type", body({}, { directive_kind: "k", summary: "s", instructions: 3 }), "payload"],
    ["a payload with an extra field", body({}, { ...directive, extra: true }), "payload"],
  ])("refuses %s with SVC_MALFORMED_REQUEST naming the field", async (_label, input, field) => {
    for (const run of [() => sendMessage(world.deps, ctxFor(input), input), () => validateMessage(world.deps, callContext(alice), input)]) {
      try {
        await run();
        throw new Error("expected a refusal");
      } catch (e) {
        expect(isDomainError(e) && e.code).toBe("SVC_MALFORMED_REQUEST");
        expect(isDomainError(e) && e.details?.["field"]).toBe(field);
        if (field === "payload") expect(isDomainError(e) && Array.isArray(e.details?.["errors"])).toBe(true);
      }
    }
    expect((await claimMessages(world.deps, callContext(bob), {})).items).toEqual([]);
  });

  it("validate is a dry run: 200-shaped answer, nothing stored, no key spent", async () => {
    const input = body();
    expect(await validateMessage(world.deps, callContext(alice, { idempotencyKey: "dry" }), input)).toEqual({ valid: true, recipient: { ai_account_id: bob.account.id, friendly_name: "bob" }, template: "directive", held_for_approval: false });
    expect((await claimMessages(world.deps, callContext(bob), {})).items).toEqual([]);
    expect(await world.deps.stores.idempotency.find({ workspaceId: alice.workspace.id, accountId: alice.account.id, key: "dry" })).toBeNull();
  });

  it("delays delivery by deliver_after", async () => {
    const input = body({ deliver_after: "PT5M" });
    await sendMessage(world.deps, ctxFor(input), input);
    expect((await claimMessages(world.deps, callContext(bob), {})).items).toEqual([]);
    world.clock.advance(5 * 60_000);
    expect((await claimMessages(world.deps, callContext(bob), {})).items).toHaveLength(1);
  });
});
