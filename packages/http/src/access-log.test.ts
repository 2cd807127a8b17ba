import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { Principal } from "@agentq/core";
import { accessLog, type ServedRequest } from "./access-log.ts";

describe("accessLog", () => {
  const served: ServedRequest[] = [];
  const app = new Hono<{ Variables: { requestId: string; principal?: Principal } }>();
  app.use("*", accessLog((entry) => served.push(entry)));
  app.use("*", async (c, next) => {
    c.set("requestId", "req-1");
    await next();
  });
  app.post("/v1/items/:item_id/ack", (c) => {
    c.set("principal", { workspace: { id: "ws-1" }, account: { id: "acc-1" }, credential: { id: "cred-1" } } as Principal);
    return c.json({ ok: true }, 201);
  });
  app.notFound((c) => c.json({ error: "none" }, 404));

  it("reports the matched pattern, the status, the request id and the caller, never the raw URL or query", async () => {
    served.length = 0;
    const res = await app.request("/v1/items/secret-id/ack?token=agq_secret", { method: "POST", body: '{"payload":"secret"}', headers: { Authorization: "Bearer agq_secret" } });
    expect(res.status).toBe(201);
    expect(served).toEqual([{ method: "POST", route: "/v1/items/:item_id/ack", status: 201, duration_ms: expect.any(Number) as number, request_id: "req-1", workspace_id: "ws-1", ai_account_id: "acc-1", credential_id: "cred-1" }]);
    expect(JSON.stringify(served)).not.toMatch(/secret/);
  });

  it("reports an unmatched request with a null route and its path without the query string", async () => {
    served.length = 0;
    expect((await app.request("/v1/nowhere?token=agq_secret")).status).toBe(404);
    expect(served).toEqual([{ method: "GET", route: null, path: "/v1/nowhere", status: 404, duration_ms: expect.any(Number) as number, request_id: "req-1" }]);
  });

  it("names the route that answered when several match (a literal beside a parameter), and the aimed route when a middleware answered", async () => {
    const log: ServedRequest[] = [];
    const overlapping = new Hono<{ Variables: { requestId: string; principal?: Principal } }>();
    overlapping.use("*", accessLog((entry) => log.push(entry)));
    overlapping.use("*", async (c, next) => {
      c.set("requestId", "req-2");
      if (c.req.query("refuse") !== undefined) return c.json({ refused: true }, 400);
      await next();
    });
    overlapping.get("/v1/items/search", (c) => c.json({ search: true }));
    overlapping.get("/v1/items/:item_id", (c) => c.json({ item: c.req.param("item_id") }));
    overlapping.get("/v1/later/:id", (c) => c.json({ id: c.req.param("id") }));
    overlapping.get("/v1/later/stale", (c) => c.json({ stale: true }));
    const routeOf = async (path: string) => {
      log.length = 0;
      await overlapping.request(path);
      return log.map((e) => e.route);
    };
    expect(await routeOf("/v1/items/search")).toEqual(["/v1/items/search"]);
    expect(await routeOf("/v1/items/01ABC")).toEqual(["/v1/items/:item_id"]);
    // Registered after the parameter route, the literal never answers: the log says who did.
    expect(await routeOf("/v1/later/stale")).toEqual(["/v1/later/:id"]);
    expect(await routeOf("/v1/items/search?refuse=1")).toEqual(["/v1/items/search"]);
    expect(await routeOf("/v1/nowhere?refuse=1")).toEqual([null]);
  });
});
