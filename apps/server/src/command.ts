import { isDomainError, ulidSource } from "@agentq/core";
import { createPgDeps, systemClock, type PgDeps } from "@agentq/postgres";
import { openDatabase, readEnv, loadSecrets, createMailer } from "@agentq/runtime";

/**
 * Runs an operator command (`pnpm bootstrap`, `pnpm admin`) against the database `pnpm start`
 * uses, whether or not the server runs: opens it (leaving an embedded server running for the
 * next process), builds the core deps, runs `fn`, closes everything, and exits with `fn`'s code.
 * A DomainError prints `CODE: message` and exits 1; any other failure prints its message and
 * exits 1.
 */
export function runCommand(fn: (deps: PgDeps) => Promise<number>): void {
  const run = async (): Promise<number> => {
    const env = readEnv();
    const db = await openDatabase(env, { max: 2, stopEmbeddedOnClose: false });
    try {
      const deps = createPgDeps({ sql: db.sql, secrets: loadSecrets(env).secrets, clock: systemClock, ids: ulidSource() });
      // The notices' review resolves URLs of this service's own items against it, and their
      // steps mail the parties through the same transport as the server (SMTP_URL or .eml files).
      deps.publicBaseUrl = env.publicBaseUrl;
      deps.mailer = createMailer(env).mailer;
      try {
        return await fn(deps);
      } finally {
        await deps.close();
      }
    } catch (e) {
      if (!isDomainError(e)) throw e;
      process.stderr.write(`${e.code}: ${e.message}\n`);
      return 1;
    } finally {
      await db.close();
    }
  };
  run().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
