import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, run } from "@agentq/cli";
import { captureIo, startService } from "../testing/cli-service.ts";
import type { ServiceUnderTest } from "../testing/cli-service.ts";

// Issue 29: the CLI passes the caller's TRACEPARENT on (the `traceparent` header of each
// request), so a send from the command line joins the caller's trace: the message carries it
// to its recipient's envelope. An invalid TRACEPARENT is ignored, never refused.

let service: ServiceUnderTest;
const directive = { directive_kind: "task", summary: "do it", instructions: "carefully" };

beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

async function cli(argv: string[], token: string, env: Record<string, string> = {}) {
  const io = captureIo({ SVC_BASE_URL: service.url, SVC_CREDENTIAL: token, ...env });
  const code = await run(argv, io);
  return { code, out: io.out(), err: io.err() };
}

type Pending = { items: { envelope: { message_id: string; traceparent: string | null } }[] };

describe("agentq and TRACEPARENT", () => {
  it("sends the caller's traceparent with a send, and ignores an invalid one", async () => {
    const [alice, bob] = [await service.agent(), await service.agent()];
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect((await cli(["send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive)], alice.token, { TRACEPARENT: traceparent })).code).toBe(EXIT.ok);
    expect((await cli(["send", bob.friendlyName, "--template", "directive", "--payload", JSON.stringify(directive)], alice.token, { TRACEPARENT: "not-a-traceparent" })).code).toBe(EXIT.ok);
    const claimed = JSON.parse((await cli(["--json", "pending", "--max", "10"], bob.token)).out) as Pending;
    expect(claimed.items.map((i) => i.envelope.traceparent)).toEqual([traceparent, null]);
  });
});
