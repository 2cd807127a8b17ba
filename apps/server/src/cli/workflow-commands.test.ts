import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, run } from "@agentq/cli";
import { seedAccount, seedTokenCredential } from "@agentq/core/testing";
import { captureIo, startService } from "../testing/cli-service.ts";
import type { ServiceUnderTest } from "../testing/cli-service.ts";

// The agent-workflow commands of `agentq` (issue 31) against the real REST app on a socket.

let service: ServiceUnderTest;
const directive = { directive_kind: "task", summary: "do it", instructions: "carefully" };

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

async function cli(argv: string[], token: string) {
  const io = captureIo({ SVC_BASE_URL: service.url, SVC_CREDENTIAL: token });
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

type Pending = { items: { envelope: { message_id: string; delivery_count: number }; lease: { lease_id: string } }[] };

describe("agentq hand-off", () => {
  it("hands a held message to another account, which claims it with its delivery count kept; to oneself exits EXIT.notFound (4)", async () => {
    const [alice, bob, carol] = [await service.agent(), await service.agent(), await service.agent()];
    expect((await cli(["send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive)], alice.token)).code).toBe(EXIT.ok);
    const item = (JSON.parse((await cli(["--json", "pending"], bob.token)).out) as Pending).items[0]!;
    const self = await cli(["hand-off", item.envelope.message_id, "--lease", item.lease.lease_id, "--to", bob.friendlyName], bob.token);
    expect(self.code).toBe(EXIT.notFound);
    expect(self.err).toMatch(/^SVC_RECIPIENT_RESOLUTION_FAILED: /);
    const handed = await cli(["hand-off", item.envelope.message_id, "--lease", item.lease.lease_id, "--to", carol.friendlyName, "--note", "yours"], bob.token);
    expect(handed).toMatchObject({ code: EXIT.ok, err: "" });
    expect(handed.out).toBe(`handed ${item.envelope.message_id} to ${carol.friendlyName} (pending, deliveries so far 1)\n`);
    const claimed = JSON.parse((await cli(["--json", "pending"], carol.token)).out) as Pending;
    expect(claimed.items.map((i) => [i.envelope.message_id, i.envelope.delivery_count])).toEqual([[item.envelope.message_id, 2]]);
  });
});

describe("agentq send --reply-to, pending --thread, thread", () => {
  it("a reply joins the thread; pending --thread claims only the thread's messages; thread lists it oldest first", async () => {
    const [alice, bob] = [await service.agent(), await service.agent()];
    const root = JSON.parse((await cli(["--json", "send", bob.friendlyName, "--template", "note", "--payload", '{"text":"which branch?"}'], alice.token)).out) as { message_id: string; thread_id: string };
    expect(root.thread_id).toBe(root.message_id);
    expect((await cli(["send", alice.friendlyName, "--template", "note", "--payload", '{"text":"unrelated"}'], bob.token)).code).toBe(EXIT.ok);
    const reply = await cli(["--json", "send", alice.friendlyName, "--template", "note", "--payload", '{"text":"main"}', "--reply-to", root.message_id], bob.token);
    expect(reply.code).toBe(EXIT.ok);
    const replyId = (JSON.parse(reply.out) as { message_id: string }).message_id;
    const claimed = JSON.parse((await cli(["--json", "pending", "--thread", root.message_id], alice.token)).out) as Pending;
    expect(claimed.items.map((i) => i.envelope.message_id)).toEqual([replyId]);
    const listed = await cli(["thread", root.message_id], bob.token);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.out.split("\n").filter((l) => l !== "").map((l) => l.split(" ")[0])).toEqual([root.message_id, replyId]);
    const unknown = await cli(["send", alice.friendlyName, "--template", "note", "--payload", '{"text":"x"}', "--reply-to", "01JZZZZZZZZZZZZZZZZZZZZZZZ"], bob.token);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.err).toMatch(/^SVC_RESOURCE_NOT_FOUND: /);
  });
});

describe("agentq approvals list|approve|reject", () => {
  it("lists what waits, approves one (delivered) and rejects one (never delivered); an operational credential is refused", async () => {
    const [alice, bob] = [await service.agent(), await service.agent()];
    const approverAccount = await seedAccount(service.world, service.workspaceId);
    const approver = (await seedTokenCredential(service.world, approverAccount, { tier: "administrative", scopes: ["approve_messages"] })).token;
    const published = await fetch(`${service.url}/v1/policies`, {
      method: "POST",
      headers: { Authorization: `Bearer ${approver}`, "Content-Type": "application/json", "Idempotency-Key": "cli-approval-policy" },
      body: JSON.stringify({ name: "cli-hold", body: "A person decides.", kind: "approval", recipients: [bob.friendlyName] }),
    });
    expect(published.status).toBe(201);
    const ids: string[] = [];
    for (const text of ["first", "second"]) {
      const sent = JSON.parse((await cli(["--json", "send", bob.friendlyName, "--template", "note", "--payload", JSON.stringify({ text })], alice.token)).out) as { message_id: string; state: string };
      expect(sent.state).toBe("held_for_approval");
      ids.push(sent.message_id);
    }
    const listed = await cli(["approvals", "list"], approver);
    expect(listed.code).toBe(EXIT.ok);
    expect(listed.out.split("\n").filter((l) => l !== "").map((l) => l.split(" ")[0])).toEqual(ids);
    expect(listed.out).toContain("held by cli-hold");
    const refused = await cli(["approvals", "approve", ids[0]!], alice.token);
    expect(refused.code).toBe(EXIT.auth);
    expect(refused.err).toMatch(/^SVC_TIER_INSUFFICIENT: /);
    expect(await cli(["approvals", "approve", ids[0]!], approver)).toMatchObject({ code: EXIT.ok, out: `approved ${ids[0]} (pending)\n` });
    expect(await cli(["approvals", "reject", ids[1]!, "--reason", "no"], approver)).toMatchObject({ code: EXIT.ok, out: `rejected ${ids[1]} (rejected)\n` });
    expect((await cli(["approvals", "approve", ids[1]!], approver)).code).toBe(EXIT.conflict);
    expect((await cli(["approvals", "list"], approver)).out).toBe("nothing waits for approval\n");
    const claimed = JSON.parse((await cli(["--json", "pending"], bob.token)).out) as Pending;
    expect(claimed.items.map((i) => i.envelope.message_id)).toEqual([ids[0]]);
  });
});
