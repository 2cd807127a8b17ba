// Runs the MCP endpoint alone (`pnpm --filter @agentq/mcp start`): /mcp and the protected-resource
// metadata on HOST:PORT, configured like `pnpm start`. No background work runs here. The
// composition root of this process: runtime wires it, the MCP app serves it.
import { createServiceDeps, listenForPlanChanges, runServiceProcess } from "@agentq/runtime";
import { createMcpApp } from "./create-mcp-app.ts";
import { McpSessions } from "./mcp-sessions.ts";

runServiceProcess(
  (wired) => {
    const { deps, authenticator } = createServiceDeps(wired.depsOptions);
    const sessions = new McpSessions(deps, { inbox: { onError: (error) => wired.logger.warn({ err: error }, "mcp inbox watch: a timed look failed; the next one covers the gap") } });
    const mcp = createMcpApp(deps, {
      sessions,
      authenticator,
      publicBaseUrl: wired.publicBaseUrl,
      onUnexpectedError: (error, requestId) => wired.logger.error({ err: error, request_id: requestId }, "mcp tool fault"),
      onRequestServed: (entry) => wired.onRequestServed(entry),
      ...(wired.tracing === undefined ? {} : { tracing: wired.tracing }),
    });
    return {
      fetch: (request, env) => mcp.fetch(request, env),
      tasks: [() => listenForPlanChanges(wired.sql, deps, wired.logger)],
      // Sessions' GET streams never end by themselves: they end when draining starts.
      draining: () => sessions.close(),
      close: () => deps.close(),
    };
  },
  {
    describe: { serves: "mcp", background: false },
    only: { matches: (path) => path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/.well-known/oauth-protected-resource"), refusal: "This process serves only the MCP endpoint at /mcp." },
  },
);
