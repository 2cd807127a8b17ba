import { describe, expect, it } from "vitest";
import { createInMemoryRestApp } from "./testing/rest-scenario.ts";

describe("the request id", () => {
  it("is the same in the header and the envelope, also for the literal path /* (where Hono runs a * middleware twice)", async () => {
    const { app } = createInMemoryRestApp();
    for (const path of ["/v1/../*", "/*", "/v1/nothing"]) {
      const res = await app.request(path, { method: "GET" });
      expect(((await res.json()) as { request_id: string }).request_id, path).toBe(res.headers.get("x-request-id"));
    }
  });
});
