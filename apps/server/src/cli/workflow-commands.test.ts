import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, run } from "@agentq/cli";
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
