// `pnpm start`: REST at /v1, MCP at /mcp, OAuth, the dashboard and the metadata documents on one
// port, over DATABASE_URL or the embedded PostgreSQL, with the background work (audit sealer,
// sweeps, webhook dispatcher) running. The composition root of the all-in-one server.
import { listenForPlanChanges, runServiceProcess } from "@agentq/runtime";
import { composeService } from "./compose.ts";

runServiceProcess(
  (wired) => {
    const service = composeService({
      ...wired.depsOptions,
      logger: wired.logger,
      people: { settings: wired.env.people, origin: wired.origin },
      // Several workers: MCP sessions (push) are off, a session's requests could reach another worker.
      mcpSessions: wired.worker === null,
      onRequestServed: (entry) => wired.onRequestServed(entry),
      onWebhookPass: (pass) => wired.onWebhookPass(pass),
      ...(wired.tracing === undefined ? {} : { tracing: wired.tracing }),
      ...(wired.env.commit === null ? {} : { commit: wired.env.commit }),
    });
    return {
      fetch: (request, env) => service.fetch(request, env),
      tasks: [() => listenForPlanChanges(wired.sql, service.deps, wired.logger)],
      background: [() => service.startBackground()],
      draining: () => service.draining(),
      // Work that followed an answer (a password reset's mail) finishes before the pool closes.
      close: async () => {
        await service.afterAnswer.settled();
        await service.close();
      },
    };
  },
  // One process unless AGENTQ_WORKERS asks for more (docs/decisions.md: MCP sessions under several workers).
  { describe: { serves: "all", background: true }, workers: 1 },
);
