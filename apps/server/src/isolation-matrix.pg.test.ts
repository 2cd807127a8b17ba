import { bootstrapWorkspace } from "@agentq/core";
import { connectForTest } from "@agentq/core/testing";
import { createTestSchema } from "@agentq/postgres/testing";
import { AcceptingTransport, describeIsolationMatrix } from "@agentq/rest/testing/matrix";
import { composeService } from "./compose.ts";
import { createLogger } from "./logger.ts";
import { deriveSecrets } from "./secrets.ts";

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
    client: { request: (path, init) => service.fetch(new Request(`http://agentq.test${path}`, init)) },
    async bootstrap(name) {
      const r = await bootstrapWorkspace(service.deps, { workspaceName: name, email: `${name}@example.test` });
      return { workspaceId: r.workspace_id, authorization: `Bearer ${r.token}` };
    },
    async setMaxDeliveries(workspaceId, n) {
      await db.sql`UPDATE workspaces SET max_deliveries = ${n} WHERE id = ${workspaceId}`;
    },
    async connectOAuthClient(workspaceId, aiAccountId) {
      const { grantId, tokens } = await connectForTest(service.deps, { workspaceId, aiAccountId });
      return { grantId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token ?? "" };
    },
    async close() {
      await service.close();
      await db.drop();
    },
  };
});
