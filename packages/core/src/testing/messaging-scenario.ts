import type { CredentialPrincipal } from "../access/model.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { claimMessages, type ClaimedItem } from "../messaging/claim-messages.ts";
import type { SendMessageInput } from "../messaging/prepare-send.ts";
import { sendMessage } from "../messaging/send-message.ts";
import { createInMemoryDeps, type InMemoryWorld } from "./create-in-memory-deps.ts";
import { fixtureId } from "./access-fixtures.ts";
import { callContext, seedPrincipal, seedTestWorkspace } from "./principal-fixtures.ts";

/** A ready in-memory world with a workspace, a sender `alice`, a recipient `bob` and an administrator `admin`. */
export interface MessagingScenario {
  world: InMemoryWorld;
  alice: CredentialPrincipal;
  bob: CredentialPrincipal;
  admin: CredentialPrincipal;
  /** Sends a directive (or `input`) from `from` (default alice) to bob; returns the message id. */
  send(input?: Partial<SendMessageInput["envelope"]>, from?: CredentialPrincipal): Promise<string>;
  /** Claims as bob (or `as`) with the given get-pending body. */
  claim(body?: { max?: number; visibility_timeout?: string; wait?: string }, as?: CredentialPrincipal): Promise<ClaimedItem[]>;
}

/** Builds a MessagingScenario over fresh in-memory deps. */
export async function createMessagingScenario(opts?: { maxDeliveries?: number }): Promise<MessagingScenario> {
  const world = createInMemoryDeps();
  const ws = await seedTestWorkspace(world.deps.stores, { maxDeliveries: opts?.maxDeliveries ?? 10 });
  const alice = await seedPrincipal(world.deps.stores, ws, { friendlyName: "alice" });
  const bob = await seedPrincipal(world.deps.stores, ws, { friendlyName: "bob" });
  const admin = await seedPrincipal(world.deps.stores, ws, { friendlyName: "admin", tier: "administrative", scopes: ["manage_ai_accounts", "manage_credentials", "manage_webhooks", "approve_messages"] });
  return {
    world,
    alice,
    bob,
    admin,
    async send(envelope = {}, from = alice) {
      const input: SendMessageInput = { envelope: { recipient: { friendly_name: "bob" }, template: "directive", ...envelope }, payload: { directive_kind: "task", summary: "s", instructions: "i" } };
      const r = await sendMessage(world.deps, callContext(from, { idempotencyKey: fixtureId(), fingerprint: requestFingerprint({ method: "POST", path: "/v1/messages/send", body: input }) }), input);
      return (r.body as { message_id: string }).message_id;
    },
    async claim(body = {}, as = bob) {
      return (await claimMessages(world.deps, callContext(as), body)).items;
    },
  };
}
