// Runs the REST API alone (`pnpm --filter @agentq/rest start`): /v1 on HOST:PORT, configured like
// `pnpm start`. No background work runs here: run `pnpm start` or the dispatcher beside it. The
// composition root of this process: runtime wires it, the REST app serves it.
import { afterAnswerWorkLoggedTo } from "@agentq/http";
import { createServiceDeps, listenForPlanChanges, runServiceProcess } from "@agentq/runtime";
import { createRestApp } from "./app.ts";

runServiceProcess(
  (wired) => {
    const { deps, authenticator } = createServiceDeps(wired.depsOptions);
    // Work after an answer (sign-ups, password resets) is logged when it fails, and awaited when stopping.
    const afterAnswer = afterAnswerWorkLoggedTo(wired.logger);
    const rest = createRestApp(deps, {
      authenticator,
      afterAnswer,
      logger: wired.logger,
      onRequestServed: (entry) => wired.onRequestServed(entry),
      ...(wired.tracing === undefined ? {} : { tracing: wired.tracing }),
      origin: wired.origin,
      ...(wired.env.commit === null ? {} : { commit: wired.env.commit }),
    });
    return {
      fetch: (request, env) => rest.fetch(request, env),
      tasks: [() => listenForPlanChanges(wired.sql, deps, wired.logger)],
      close: async () => {
        await afterAnswer.settled();
        await deps.close();
      },
    };
  },
  {
    describe: { serves: "rest", background: false },
    only: { matches: (path) => path === "/v1" || path.startsWith("/v1/"), refusal: "This process serves only the REST API under /v1." },
  },
);
