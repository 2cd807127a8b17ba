import { bootstrapWorkspace } from "@agentq/core";
import { connectForTest } from "@agentq/core/testing";
import { openMatrixSession, type MatrixTarget } from "@agentq/rest/testing/matrix";
import type postgres from "postgres";
import type { ComposedService } from "../compose.ts";

/**
 * The composed server as the isolation matrix's target (and its world builder's): requests in
 * process through `service.fetch`, workspaces bootstrapped through the core, max_deliveries set
 * in the database, OAuth connections made through the core, people's sessions opened through the stores. `close` releases nothing: the caller
 * owns the service and the schema.
 */
export function composedMatrixTarget(service: ComposedService, sql: postgres.Sql): MatrixTarget {
  return {
    client: { request: (path, init) => service.fetch(new Request(`http://agentq.test${path}`, init)) },
    async bootstrap(name) {
      const r = await bootstrapWorkspace(service.deps, { workspaceName: name, email: `${name}@example.test` });
      return { workspaceId: r.workspace_id, authorization: `Bearer ${r.token}` };
    },
    async setMaxDeliveries(workspaceId, n) {
      await sql`UPDATE workspaces SET max_deliveries = ${n} WHERE id = ${workspaceId}`;
    },
    openPersonSession: (workspaceId, email, role) => openMatrixSession(service.deps, { workspaceId, email, role }),
    async connectOAuthClient(workspaceId, aiAccountId) {
      const { grantId, tokens } = await connectForTest(service.deps, { workspaceId, aiAccountId });
      return { grantId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token ?? "" };
    },
    async close() {},
  };
}
