import { createTestSchema } from "@agentq/postgres/testing";
import { AcceptingTransport, describeIsolationMatrix } from "@agentq/rest/testing/matrix";
import { composeService } from "./compose.ts";
import { createLogger, deriveSecrets } from "@agentq/runtime";
import { composedMatrixTarget } from "./testing/matrix-target.ts";

// The catalogue-driven isolation matrix (apps/rest) against the composed server over
// PostgreSQL: the SQL of every store must keep workspaces apart as the in-memory adapters do.
describeIsolationMatrix("composed server over PostgreSQL", async () => {
  const db = await createTestSchema({ max: 5 });
  const service = composeService({
    sql: db.sql,
    secrets: deriveSecrets("server-isolation-matrix-master-secret-0123456789"),
    publicBaseUrl: "http://agentq.test",
    logger: createLogger("silent"),
    // The rate limiter would refuse the matrix's burst of calls from one credential.
    rateLimiter: "off",
    webhooks: { transport: new AcceptingTransport() },
  });
  return {
    ...composedMatrixTarget(service, db.sql),
    async close() {
      await service.close();
      await db.drop();
    },
  };
});
