import { describe, expect, it } from "vitest";
import { downloadAuditChain } from "./audit-chain-download.ts";

// The paging and the 429 waits of `pnpm audit:export`, over a scripted fetch and a recorded
// sleep (no real waiting). The command itself runs against a real server in
// audit-commands.process.test.ts.
describe("downloadAuditChain", () => {
  const NOW = Date.parse("2026-04-01T10:00:00.000Z");
  const page = (items: unknown[], nextCursor: string | null) => Response.json({ items, next_cursor: nextCursor });
  const limited = (retryAfter?: string) =>
    Response.json({ error: { code: "SVC_RATE_LIMITED", message: "m" }, request_id: "r" }, { status: 429, headers: retryAfter === undefined ? {} : { "Retry-After": retryAfter } });

  function scripted(responses: Response[]) {
    const urls: string[] = [];
    const sleeps: number[] = [];
    const fetch = (async (input: string | URL | Request) => {
      urls.push(input instanceof Request ? input.url : input.toString());
      const next = responses.shift();
      if (next === undefined) throw new Error("no more scripted responses");
      return next;
    }) as typeof globalThis.fetch;
    const run = () => downloadAuditChain({ baseUrl: "http://agentq.test", token: "agq_ad_t", fetch, sleep: async (ms) => void sleeps.push(ms), now: () => NOW });
    return { urls, sleeps, run };
  }

  it("follows next_cursor to the end and returns one JSON line per item, oldest first", async () => {
    const s = scripted([page([{ seq: 1 }, { seq: 2 }], "c2"), page([{ seq: 3 }], null)]);
    expect(await s.run()).toEqual({ ok: true, lines: ['{"seq":1}', '{"seq":2}', '{"seq":3}'] });
    expect(s.urls).toEqual(["http://agentq.test/v1/audit-log/chain?limit=100", "http://agentq.test/v1/audit-log/chain?limit=100&cursor=c2"]);
    expect(s.sleeps).toEqual([]);
  });

  it("waits Retry-After seconds on a 429 and asks for the same page again", async () => {
    const s = scripted([page([{ seq: 1 }], "c2"), limited("7"), limited("2"), page([{ seq: 2 }], null)]);
    expect(await s.run()).toEqual({ ok: true, lines: ['{"seq":1}', '{"seq":2}'] });
    expect(s.sleeps).toEqual([7_000, 2_000]);
    expect(s.urls.slice(1)).toEqual(Array(3).fill("http://agentq.test/v1/audit-log/chain?limit=100&cursor=c2"));
  });

  it("reads an HTTP-date Retry-After, caps every wait at 60 s and backs off from 1 s, doubling, when Retry-After is missing", async () => {
    const s = scripted([limited(new Date(NOW + 4_000).toUTCString()), limited("3600"), limited(), limited("soon"), page([], null)]);
    expect(await s.run()).toEqual({ ok: true, lines: [] });
    expect(s.sleeps).toEqual([4_000, 60_000, 4_000, 8_000]);
  });

  it("waits out a 503 SVC_SERVICE_UNAVAILABLE (retryable) the same way", async () => {
    const unavailable = () => Response.json({ error: { code: "SVC_SERVICE_UNAVAILABLE", message: "m" }, request_id: "r" }, { status: 503 });
    const s = scripted([unavailable(), unavailable(), page([{ seq: 1 }], null)]);
    expect(await s.run()).toEqual({ ok: true, lines: ['{"seq":1}'] });
    expect(s.sleeps).toEqual([1_000, 2_000]);
  });

  it("gives up after five waits in a row on one page, with the status and code", async () => {
    const s = scripted(Array.from({ length: 6 }, () => limited("1")));
    expect(await s.run()).toEqual({ ok: false, status: 429, code: "SVC_RATE_LIMITED" });
    expect(s.sleeps).toEqual([1_000, 1_000, 1_000, 1_000, 1_000]);
  });

  it("counts waits per page: a page that succeeds resets the count", async () => {
    const s = scripted([...Array.from({ length: 5 }, () => limited("1")), page([{ seq: 1 }], "c2"), ...Array.from({ length: 5 }, () => limited("1")), page([{ seq: 2 }], null)]);
    expect(await s.run()).toEqual({ ok: true, lines: ['{"seq":1}', '{"seq":2}'] });
    expect(s.sleeps).toHaveLength(10);
  });

  it("stops at once on any other failure", async () => {
    const s = scripted([Response.json({ error: { code: "SVC_SCOPE_INSUFFICIENT", message: "m" }, request_id: "r" }, { status: 403 })]);
    expect(await s.run()).toEqual({ ok: false, status: 403, code: "SVC_SCOPE_INSUFFICIENT" });
    expect(s.sleeps).toEqual([]);
  });
});
