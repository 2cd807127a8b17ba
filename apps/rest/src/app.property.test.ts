import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { conventionViolation, randomRequests } from "./testing/random-requests.ts";
import { createTestApp, TOKENS } from "./testing/test-app.ts";
import { TEST_OPERATIONS } from "./testing/test-operations.ts";

describe("random requests at the derived routes", () => {
  it("never get a server fault, and every error is the envelope", async () => {
    const { app } = createTestApp();
    await fc.assert(
      fc.asyncProperty(randomRequests(TEST_OPERATIONS.filter((op) => op.name !== "test_fault"), Object.values(TOKENS)), async (req) => {
        const res = await app.request(req.path, { method: req.method, headers: req.headers, body: req.body });
        const violation = await conventionViolation(req, res);
        expect(violation, `${req.method} ${req.path}`).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});
