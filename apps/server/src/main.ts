// `pnpm start`: REST at /v1, MCP at /mcp, OAuth, the dashboard and the metadata documents on one
// port, over DATABASE_URL or the embedded PostgreSQL, with the background work (audit sealer,
// sweeps, webhook dispatcher) running. The composition root of the all-in-one server.
import { listenForPlanChanges, runServiceProcess } from "@agentq/runtime";
import { composeService } from "./compose.ts";

/** Set to true by the production bundle (`pnpm build`, bundle.ts's esbuild `define`); undefined under tsx. */
declare const AGENTQ_BUNDLED: boolean | undefined;

runServiceProcess(
  (wired) => {
    const service = composeService({
      ...wired.depsOptions,
      logger: wired.logger,
      people: { settings: wired.env.people, origin: wired.origin },
      ...(wired.env.commit === null ? {} : { commit: wired.env.commit }),
    });
    return {
      fetch: (request, env) => service.fetch(request, env),
      tasks: [() => listenForPlanChanges(wired.sql, service.deps, wired.logger)],
      background: [() => service.startBackground()],
      // Work that followed an answer (a password reset's mail) finishes before the pool closes.
      close: async () => {
        await service.afterAnswer.settled();
        await service.close();
      },
    };
  },
  // `pnpm start:prod` and the Docker image run one worker per core (AGENTQ_WORKERS); `pnpm start` one.
  { describe: { serves: "all", background: true }, workers: typeof AGENTQ_BUNDLED !== "undefined" && AGENTQ_BUNDLED ? "cores" : 1 },
);
