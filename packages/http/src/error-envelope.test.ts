import { DomainError, ulidSource } from "@agentq/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorHandler, reportFaultTo, routeNotFound } from "./error-envelope.ts";
import { requestId, type EdgeEnv } from "./request-id.ts";
import { RouteTable } from "./route-table.ts";

interface Envelope {
  error: { code: string; details?: Record<string, unknown> };
  request_id: string;
}

function appWith(onFault: (err: unknown) => void) {
  const routes = new RouteTable();
  routes.add("POST", "/things/{id}");
  const app = new Hono<EdgeEnv>();
  app.use("*", requestId(ulidSource()));
  app.post("/things/:id", (c) => {
    if (c.req.param("id") === "busy") throw new DomainError("SVC_RATE_LIMITED", "Slow down.", {}, { retryAfterSeconds: 2.5 });
    if (c.req.param("id") === "fault") throw new Error("secret internals");
    throw new DomainError("SVC_RESOURCE_NOT_FOUND", "No such thing.");
  });
  app.notFound(routeNotFound(routes));
  app.onError(errorHandler({ onFault: (err) => onFault(err) }));
  return app;
}

describe("the error envelope, the fault report and 404/405", () => {
  it("renders a DomainError with its catalogue status, no-store, the request id and Retry-After", async () => {
    const res = await appWith(() => undefined).request("/things/busy", { method: "POST" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("3");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = (await res.json()) as Envelope;
    expect(body.error.code).toBe("SVC_RATE_LIMITED");
    expect(body.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("answers a server fault 503 SVC_SERVICE_UNAVAILABLE without its message, and reports it (only it)", async () => {
    const faults: unknown[] = [];
    const app = appWith((err) => faults.push(err));
    const res = await app.request("/things/fault", { method: "POST" });
    expect(res.status).toBe(503);
    const text = await res.text();
    expect((JSON.parse(text) as Envelope).error.code).toBe("SVC_SERVICE_UNAVAILABLE");
    expect(text).not.toContain("secret internals");
    expect((await app.request("/things/other", { method: "POST" })).status).toBe(404);
    expect(faults).toHaveLength(1);
  });

  it("tells an unknown path (404, details.path) from a known path with another method (405, Allow)", async () => {
    const app = appWith(() => undefined);
    const unknown = await app.request("/nowhere");
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Envelope).error).toMatchObject({ code: "SVC_ROUTE_NOT_FOUND", details: { path: "/nowhere" } });
    const wrong = await app.request("/things/x", { method: "DELETE" });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect(((await wrong.json()) as Envelope).error).toMatchObject({ code: "SVC_METHOD_NOT_ALLOWED", details: { method: "DELETE", allowed_methods: ["POST"] } });
  });

  it("logs a fault with the request id, method and path, and never a refusal", () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const report = reportFaultTo({ error: (fields, message) => lines.push({ fields, message }) }, "request failed");
    const c = { get: () => "01ID", req: { method: "POST", path: "/p" } } as unknown as Parameters<typeof report>[1];
    report(new DomainError("SVC_RESOURCE_NOT_FOUND", "no"), c);
    report(new TypeError("boom"), c);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ message: "request failed", fields: { request_id: "01ID", method: "POST", path: "/p", err: { type: "TypeError", message: "boom" } } });
  });
});
