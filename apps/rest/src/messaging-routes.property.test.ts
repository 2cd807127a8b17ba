import { MESSAGING_OPERATIONS } from "@agentq/core";
import type { Operation } from "@agentq/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { call } from "./testing/call.ts";
import { conventionViolation, randomRequests } from "./testing/random-requests.ts";
import { bootstrap, createAgent, createInMemoryRestApp, directiveTo } from "./testing/rest-scenario.ts";

// Issue 3's fuzzing: 10,000 random bodies, headers and paths at the messaging routes.
describe("random requests at the messaging routes (real catalogue, in-memory deps)", () => {
  it("never get a server fault, and every error is the envelope", async () => {
    const { world, app, logger } = createInMemoryRestApp();
    const admin = await bootstrap(world, "alpha");
    const alice = await createAgent(app, admin, "alice");
    const bob = await createAgent(app, admin, "bob");
    const sent = await call(app, "POST", "/v1/messages/send", { authorization: alice.authorization, key: "seed", body: directiveTo("bob") });
    const claimed = await call(app, "POST", "/v1/messages/get-pending", { authorization: bob.authorization, body: { max: 1 } });
    const leaseId = claimed.body.items[0].lease.lease_id as string;
    const operations: readonly Operation[] = MESSAGING_OPERATIONS;
    const tokens = [alice, bob].map((a) => a.authorization.slice("Bearer ".length)).concat(admin.authorization.slice("Bearer ".length));
    const seeds = {
      segments: [sent.body.message_id as string, "directive", "note"],
      strings: [leaseId, "bob", "alice", "directive", "PT10S", "PT0S", "PT600S", "P1D", "urgent"],
      bodies: [directiveTo("bob"), { max: 5, visibility_timeout: "PT30S" }, { lease_id: leaseId, outcome_summary: "ok" }, { lease_id: leaseId, visibility_timeout: "PT30S" }, { lease_id: leaseId, redeliver_after: "PT5S", reason: "r" }],
    };
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(randomRequests(operations, tokens, seeds), async (req) => {
        // The in-memory notifier runs on the manual clock, so a long poll (a valid `wait`) would
        // park until the clock moves; the client going away ends it, as it does in production.
        const res = await app.request(req.path, { method: req.method, headers: req.headers, body: req.body, signal: AbortSignal.timeout(100) });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const violation = await conventionViolation(req, res);
        expect(violation, `${req.method} ${req.path}`).toBeNull();
      }),
      { numRuns: 10_000 },
    );
    expect(logger.entries).toEqual([]);
    // The generator reaches the handlers, not only the front door.
    for (const status of [200, 400, 401, 403, 404, 405, 413, 415]) expect(statuses.get(status) ?? 0, `responses with ${status}`).toBeGreaterThan(0);
  }, 120_000);
});
