import { ulidSource } from "@agentq/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorEnvelopeResponse } from "./error-envelope.ts";
import { requestId, type EdgeEnv } from "./request-id.ts";

describe("requestId", () => {
  it("gives each request a fresh id in X-Request-Id, the same one the envelope names, also for the literal path /* (a * middleware runs twice there)", async () => {
    const app = new Hono<EdgeEnv>();
    app.use("*", requestId(ulidSource()));
    app.get("/ok", (c) => c.text(c.get("requestId")));
    app.notFound((c) => errorEnvelopeResponse(c, new Error("no")));
    const first = await app.request("/ok", { headers: { "X-Request-Id": "chosen-by-the-client" } });
    const second = await app.request("/ok");
    expect(first.headers.get("x-request-id")).toBe(await first.text());
    expect(first.headers.get("x-request-id")).toMatch(/^[0-9A-Z]{26}$/);
    expect(second.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    for (const path of ["/*", "/nothing"]) {
      const res = await app.request(path);
      expect(((await res.json()) as { request_id: string }).request_id, path).toBe(res.headers.get("x-request-id"));
    }
  });
});
