import { beforeEach, describe, expect, it } from "vitest";
import { isDomainError, type ErrorCode } from "../errors.ts";
import { encodeCursor } from "../cursors/cursor.ts";
import { fixtureId } from "../testing/access-fixtures.ts";
import { createMessagingScenario, type MessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext, seedPrincipal } from "../testing/principal-fixtures.ts";
import { DAY_MS } from "../time/duration.ts";
import { getMessage, getMessagePayload } from "./get-message.ts";
import { listMessages } from "./list-messages.ts";
import { listRecipients } from "./list-recipients.ts";

async function codeOf(p: Promise<unknown>): Promise<ErrorCode> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  throw new Error("expected a DomainError");
}

describe("message reads: get_message, list_messages, list_recipients", () => {
  let s: MessagingScenario;
  beforeEach(async () => {
    s = await createMessagingScenario();
  });

  it("get_message: envelope, effective state and timeline for sender and recipient; 404 for anyone else", async () => {
    const id = await s.send({ correlation_id: "c", ttl: "P1D" });
    const view = await getMessage(s.world.deps, callContext(s.alice), { message_id: id });
    expect(view).toEqual({
      envelope: { message_id: id, sender: { ai_account_id: s.alice.account.id, friendly_name: "alice" }, recipient: { ai_account_id: s.bob.account.id, friendly_name: "bob" }, template: "directive", priority: "normal", correlation_id: "c", accepted_at: s.world.clock.now().toISOString(), expires_at: new Date(s.world.clock.now().getTime() + DAY_MS).toISOString(), delivery_count: 0, in_reply_to: null, thread_id: id, traceparent: null },
      state: "pending",
      lease: null,
      payload_bytes: 58,
      timeline: [{ at: s.world.clock.now().toISOString(), activity: "message.sent", actor_ai_account_id: s.alice.account.id, details: (expect.objectContaining({ recipient_id: s.bob.account.id, template: "directive" }) as unknown) }],
    });
    expect((await getMessage(s.world.deps, callContext(s.bob), { message_id: id })).state).toBe("pending");
    const eve = await seedPrincipal(s.world.deps.stores, s.alice.workspace, { friendlyName: "eve" });
    expect(await codeOf(getMessage(s.world.deps, callContext(eve), { message_id: id }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(getMessage(s.world.deps, callContext(s.alice), { message_id: fixtureId() }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await codeOf(getMessage(s.world.deps, callContext(s.alice), { message_id: "../etc" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    s.world.clock.advance(DAY_MS);
    expect((await getMessage(s.world.deps, callContext(s.alice), { message_id: id })).state).toBe("expired");
  });

  it("a held message whose lease ran out shows as pending, its lease no longer live; the payload read is an audit row", async () => {
    const id = await s.send({ ttl: "P1D" });
    const [claimed] = await s.claim({ max: 1 });
    const held = await getMessage(s.world.deps, callContext(s.alice), { message_id: id });
    expect(held).toMatchObject({ state: "held", lease: { claimed_at: s.world.clock.now().toISOString(), expires_at: claimed?.lease.lease_expires_at, extensions: 0, live: true } });
    s.world.clock.advance(60 * 60 * 1000);
    const lapsed = await getMessage(s.world.deps, callContext(s.alice), { message_id: id });
    expect(lapsed).toMatchObject({ state: "pending", lease: { live: false } });
    expect((await listMessages(s.world.deps, callContext(s.bob), { state: "held" })).items).toEqual([]);
    expect((await listMessages(s.world.deps, callContext(s.bob), { state: "pending" })).items.map((i) => i.state)).toEqual(["pending"]);
    const read = await getMessagePayload(s.world.deps, callContext(s.alice), { message_id: id });
    expect(read).toEqual({ message_id: id, template: "directive", payload: { directive_kind: "task", summary: "s", instructions: "i" } });
    expect(JSON.stringify(read.payload).length).toBe(lapsed.payload_bytes);
    const after = await getMessage(s.world.deps, callContext(s.alice), { message_id: id });
    expect(after.timeline.map((t) => t.activity)).toContain("message.payload_viewed");
  });

  it("list_messages: role and state filters, newest first, paged with a signed cursor until next_cursor is null", async () => {
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push(await s.send());
    const reply = await s.send({ recipient: { friendly_name: "alice" } }, s.bob);
    const all = await listMessages(s.world.deps, callContext(s.bob), {});
    expect(all.items.map((i) => i.envelope.message_id)).toEqual([reply, ...[...sent].reverse()]);
    expect(all.next_cursor).toBeNull();
    expect((await listMessages(s.world.deps, callContext(s.bob), { role: "sent" })).items.map((i) => i.envelope.message_id)).toEqual([reply]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listMessages>> = await listMessages(s.world.deps, callContext(s.bob), { role: "received", limit: "2", cursor });
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((i) => i.envelope.message_id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual([...sent].reverse());
    await s.claim({ max: 1 });
    expect((await listMessages(s.world.deps, callContext(s.bob), { state: "held" })).items.map((i) => [i.envelope.message_id, i.state])).toEqual([[sent[0], "held"]]);
  });

  it("list_messages refuses bad filters and limits (400) and cursors of another query (SVC_CURSOR_EXPIRED)", async () => {
    for (let i = 0; i < 3; i++) await s.send();
    const ctx = callContext(s.bob);
    expect(await codeOf(listMessages(s.world.deps, ctx, { role: "mine" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(listMessages(s.world.deps, ctx, { state: "done" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(listMessages(s.world.deps, ctx, { limit: "ten" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(listMessages(s.world.deps, ctx, { limit: 1.5 }))).toBe("SVC_MALFORMED_REQUEST");
    expect((await listMessages(s.world.deps, ctx, { limit: 1000 })).items).toHaveLength(3);
    expect((await listMessages(s.world.deps, ctx, { limit: 0 })).items).toHaveLength(1);
    const page = await listMessages(s.world.deps, ctx, { limit: 1, role: "received" });
    const cursor = page.next_cursor as string;
    expect(await codeOf(listMessages(s.world.deps, ctx, { limit: 1, role: "any", cursor }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(listMessages(s.world.deps, callContext(s.alice), { limit: 1, role: "received", cursor }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(listMessages(s.world.deps, ctx, { limit: 1, role: "received", cursor: `${cursor}x` }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(listRecipients(s.world.deps, ctx, { cursor }))).toBe("SVC_CURSOR_EXPIRED");
    expect((await listMessages(s.world.deps, ctx, { limit: 1, role: "received", cursor })).items).toHaveLength(1);
    s.world.clock.advance(DAY_MS + 1);
    expect(await codeOf(listMessages(s.world.deps, ctx, { limit: 1, role: "received", cursor }))).toBe("SVC_CURSOR_EXPIRED");
  });

  it("list_recipients: the workspace's addressable accounts (not revoked), paged", async () => {
    const eve = await seedPrincipal(s.world.deps.stores, s.alice.workspace, { friendlyName: "eve" });
    await s.world.deps.stores.accounts.transition({ workspaceId: eve.workspace.id, accountId: eve.account.id, from: ["active"], to: "revoked", now: s.world.clock.now() });
    const all = await listRecipients(s.world.deps, callContext(s.alice), {});
    expect(all).toEqual({ items: ["alice", "bob", "admin"].map((n) => ({ ai_account_id: (expect.any(String) as string), friendly_name: n })), next_cursor: null });
    const first = await listRecipients(s.world.deps, callContext(s.alice), { limit: 2 });
    expect(first.items.map((i) => i.friendly_name)).toEqual(["alice", "bob"]);
    const rest = await listRecipients(s.world.deps, callContext(s.alice), { limit: 2, cursor: first.next_cursor });
    expect(rest).toEqual({ items: [{ ai_account_id: s.admin.account.id, friendly_name: "admin" }], next_cursor: null });
    const forged = encodeCursor({ secrets: { cursorKey: new Uint8Array(32) }, clock: s.world.clock }, { resource: "recipients", workspaceId: s.alice.workspace.id, filters: {} }, s.alice.account.id);
    expect(await codeOf(listRecipients(s.world.deps, callContext(s.alice), { cursor: forged }))).toBe("SVC_CURSOR_EXPIRED");
    expect(await codeOf(listRecipients(s.world.deps, callContext(s.alice), { limit: "many" }))).toBe("SVC_MALFORMED_REQUEST");
  });
});
