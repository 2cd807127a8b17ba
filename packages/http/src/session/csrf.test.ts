import { isDomainError } from "@agentq/core";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { checkCookieWrite, refuseForeignOrigin } from "./csrf.ts";

// The one origin check (DESIGN §2b, §2c): the whole origin, scheme, host and port, against
// PUBLIC_BASE_URL's; the host a request was addressed to plays no part.
describe("the origin check", () => {
  const OWN = "http://127.0.0.1:8092";
  const app = new Hono();
  app.onError((error, c) => c.json({ code: isDomainError(error) ? error.code : "unexpected" }, isDomainError(error) ? 403 : 500));
  app.post("/cookie-write", (c) => {
    checkCookieWrite(c, OWN);
    return c.json({ code: "ok" });
  });
  app.get("/cookie-write", (c) => {
    checkCookieWrite(c, OWN);
    return c.json({ code: "ok" });
  });
  app.post("/anonymous", (c) => {
    refuseForeignOrigin(c, OWN);
    return c.json({ code: "ok" });
  });
  const codeOf = async (path: string, headers: Record<string, string>, method = "POST") => ((await (await app.request(`http://127.0.0.1:8092${path}`, { method, headers })).json()) as { code: string }).code;

  const FOREIGN: Array<[string, string]> = [
    ["wrong scheme", "https://127.0.0.1:8092"],
    ["wrong port", "http://127.0.0.1:8093"],
    ["no port (80)", "http://127.0.0.1"],
    ["wrong host", "http://localhost:8092"],
    ["another site", "https://evil.example"],
    ["opaque", "null"],
    ["a path after the origin", "http://127.0.0.1:8092/"],
  ];

  it("refuses a state-changing request whose Origin differs in any part, even when the Host header names the service", async () => {
    for (const [what, origin] of FOREIGN) {
      expect(await codeOf("/cookie-write", { Origin: origin, Host: "127.0.0.1:8092" }), what).toBe("SVC_CSRF_REJECTED");
      expect(await codeOf("/cookie-write", { Origin: origin, "Sec-Fetch-Site": "same-origin" }), `${what} + Sec-Fetch-Site`).toBe("SVC_CSRF_REJECTED");
      expect(await codeOf("/anonymous", { Origin: origin }), `${what}, anonymous`).toBe("SVC_CSRF_REJECTED");
    }
  });

  it("passes the own origin, and without Origin a same-origin Sec-Fetch-Site; refuses a cookie write with neither", async () => {
    expect(await codeOf("/cookie-write", { Origin: OWN })).toBe("ok");
    expect(await codeOf("/cookie-write", { "Sec-Fetch-Site": "same-origin" })).toBe("ok");
    expect(await codeOf("/cookie-write", {})).toBe("SVC_CSRF_REJECTED");
    expect(await codeOf("/cookie-write", { "Sec-Fetch-Site": "same-site" })).toBe("SVC_CSRF_REJECTED");
    expect(await codeOf("/cookie-write", { Origin: "https://evil.example" }, "GET")).toBe("ok");
    // A request with no cookie and no Origin (a program) is not refused by the anonymous rule.
    expect(await codeOf("/anonymous", {})).toBe("ok");
    expect(await codeOf("/anonymous", { Origin: OWN })).toBe("ok");
  });
});
