import { isDomainError } from "@agentq/core";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgWorkspaceStore } from "./pg-workspace-store.ts";
import { isDataException, isUnavailable, translatePgError, uniqueViolationOutcome } from "./pg-errors.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

describe("PostgreSQL error translation", () => {
  it("a database that cannot be reached becomes SVC_SERVICE_UNAVAILABLE", async () => {
    // Port 1 on the loopback: nothing listens, the connection is refused at once.
    const unreachable = postgres("postgres://postgres@127.0.0.1:1/none", { max: 1, connect_timeout: 2, onnotice: () => undefined });
    try {
      const failure = await new PgWorkspaceStore(unreachable).findById({ workspaceId: "x" }).then(() => null, (e: unknown) => e);
      expect(isDomainError(failure) && failure.code).toBe("SVC_SERVICE_UNAVAILABLE");
    } finally {
      await unreachable.end({ timeout: 1 });
    }
  });

  it("a server that terminates the connection becomes SVC_SERVICE_UNAVAILABLE", async () => {
    const victim = db.connect({ max: 1 });
    const [{ pid } = { pid: 0 }] = await victim<{ pid: number }[]>`select pg_backend_pid() as pid`;
    const pending = victim`select pg_sleep(30)`.then(() => null, (e: unknown) => e);
    await db.sql`select pg_terminate_backend(${pid})`;
    const failure = translatePgError(await pending);
    expect(isDomainError(failure) && failure.code).toBe("SVC_SERVICE_UNAVAILABLE");
    await victim.end({ timeout: 0 });
  });

  it("names the outcome of a unique violation of a known constraint, and only of one", async () => {
    const failure = await db.sql`insert into persons (workspace_id, id, email, created_at) values ('w', 'p1', 'same@example.test', now()), ('w', 'p2', 'same@example.test', now())`.then(() => null, (e: unknown) => e);
    expect(uniqueViolationOutcome(failure)).toBe("email_taken");
    expect(isUnavailable(failure)).toBe(false);
    expect(translatePgError(failure)).toBe(failure);
    const other = await db.sql`insert into workspaces (id, name, owner_person_id, state, created_at) values ('w1', 'n', 'p', 'active', now()), ('w1', 'n', 'p', 'active', now())`.then(() => null, (e: unknown) => e);
    expect(uniqueViolationOutcome(other)).toBeNull();
  });

  it("a data exception (SQLSTATE class 22: U+0000 in text or jsonb, a lone surrogate in jsonb, a number out of range) becomes SVC_MALFORMED_REQUEST, never 503 (DESIGN §2c)", async () => {
    const failures = [
      await db.sql`select ${"a\u0000b"}::text`.then(() => null, (e: unknown) => e),
      await db.sql.unsafe(`select '{"a":"\\u0000"}'::jsonb`).then(() => null, (e: unknown) => e),
      await db.sql.unsafe(`select '{"a":"\\ud800"}'::jsonb`).then(() => null, (e: unknown) => e),
      await db.sql`select ${"99999999999"}::int4`.then(() => null, (e: unknown) => e),
    ];
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(postgres.PostgresError);
      expect((failure as postgres.PostgresError).code.startsWith("22")).toBe(true);
      expect(isDataException(failure)).toBe(true);
      expect(isUnavailable(failure)).toBe(false);
      const translated = translatePgError(failure);
      expect(isDomainError(translated) && translated.code).toBe("SVC_MALFORMED_REQUEST");
    }
    // Through a store, as a request's value would arrive.
    const refused = await new PgWorkspaceStore(db.sql).findById({ workspaceId: "w\u0000" }).then(() => null, (e: unknown) => e);
    expect(isDomainError(refused) && refused.code).toBe("SVC_MALFORMED_REQUEST");
  });
});
