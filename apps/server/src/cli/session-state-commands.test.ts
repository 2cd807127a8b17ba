import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT, run } from "@agentq/cli";
import { captureIo, startService, type ServiceUnderTest } from "../testing/cli-service.ts";

let service: ServiceUnderTest;
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

describe("agentq session, decide and backlog (in process, against the REST app)", () => {
  it("runs a working day with AGENTQ_SESSION_ID, in human output", async () => {
    const a = await service.agent();
    expect((await cli(["project", "create", "--name", "Human day"], a.token)).out).toMatch(/^project [0-9A-Z]{26} human-day \(default\)\n$/);
    const started = await cli(["session", "start", "--title", "Morning", "--client", "claude-code:opus"], a.token);
    expect(started).toMatchObject({ code: EXIT.ok, err: "" });
    expect(started.out).toContain("no previous session in this project");
    const id = /^session ([0-9A-Z]{26}) active \(live\) "Morning"/.exec(started.out)?.[1] ?? "";
    const env = { AGENTQ_SESSION_ID: id };
    expect((await cli(["session", "ping", "--focus", "x"], a.token, env)).out).toContain(`${id} active (live)`);
    expect((await cli(["decide", "--title", "T", "--decision", "D."], a.token, env)).out).toMatch(/^decision #1 [0-9A-Z]{26} decision "T"\n$/);
    const added = await cli(["backlog", "add", "--title", "Bug", "--priority", "1", "--label", "cli"], a.token);
    expect(added.out).toMatch(/^#1 [0-9A-Z]{26} untriaged P1 task "Bug"\n$/);
    expect((await cli(["session", "lead", "read me first"], a.token, env)).out).toContain("  read me first\n");
    expect((await cli(["session", "end", "--summary", "ok"], a.token, env)).out).toContain(`ended ${id} ended "Morning"`);
    const next = await cli(["session", "start", "--title", "Afternoon"], a.token);
    expect(next.out).toContain(`previous session ${id} (ended, completed) "Morning"`);
    expect(next.out).toContain("  lead: read me first");
  });

  it("refuses what it cannot send: no session, a correction without --why, two outcomes, a bad priority (CLI_USAGE)", async () => {
    const a = await service.agent();
    for (const argv of [["session", "ping"], ["decide", "--correct", "01J0000000000000000000AAAA", "--decision", "x"], ["decide", "--decision", "x"], ["backlog", "close", "01J0000000000000000000AAAA", "--resolved", "--dismissed"], ["backlog", "add", "--title", "t", "--priority", "9"]]) {
      const r = await cli(argv, a.token);
      expect(r.code, argv.join(" ")).toBe(EXIT.usage);
      expect(r.err, argv.join(" ")).toMatch(/^CLI_USAGE: /);
    }
  });

  it("reports the service's code: a second end of a session is SVC_RESOURCE_CONFLICT", async () => {
    const a = await service.agent();
    await cli(["project", "create", "--name", "Conflicts"], a.token);
    const started = JSON.parse((await cli(["--json", "session", "start", "--title", "once"], a.token)).out) as { session: { id: string } };
    expect((await cli(["session", "end", "--session", started.session.id], a.token)).code).toBe(EXIT.ok);
    const again = await cli(["--json", "session", "end", "--session", started.session.id], a.token);
    expect(again.code).not.toBe(EXIT.ok);
    expect(again.err).toMatch(/^SVC_RESOURCE_CONFLICT: /);
    expect(JSON.parse(again.out)).toMatchObject({ error: { code: "SVC_RESOURCE_CONFLICT", details: { reason: "session_ended" } } });
  });
});
