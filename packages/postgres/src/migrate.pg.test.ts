import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate, MIGRATIONS_FOLDER } from "./migrate.ts";
import { testDatabaseUrl } from "./testing/test-schema.ts";

let sql: postgres.Sql;
const schema = `t_migrate_${randomBytes(4).toString("hex")}`;
beforeAll(() => {
  sql = postgres(testDatabaseUrl(), { max: 6, onnotice: () => undefined });
});
afterAll(async () => {
  await sql`drop schema if exists ${sql(schema)} cascade`;
  await sql.end();
});

it("applies every committed migration once into the target schema, even when started concurrently", async () => {
  const total = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;
  const applied = await Promise.all(Array.from({ length: 4 }, () => migrate(sql, { schema })));
  expect(applied.reduce((a, b) => a + b, 0)).toBe(total);
  expect(await migrate(sql, { schema })).toBe(0);
  const tables = await sql<{ table_name: string }[]>`select table_name from information_schema.tables where table_schema = ${schema} order by table_name`;
  expect(tables.map((t) => t.table_name)).toEqual(
    [
      "__drizzle_migrations", "ai_accounts", "anonymous_limit_counters", "audit_chain", "audit_checkpoints", "audit_log", "audit_tree_backlog", "audit_tree_hashes", "audit_unsealed", "backlog_items", "build_sessions", "credentials", "decision_log_entries", "decision_source_amendments",
      "idempotency_keys", "lesson_candidates", "lesson_observations", "lessons", "messages", "notices", "oauth_authorization_codes", "oauth_clients", "oauth_grant_credentials", "oauth_grants",
      "oauth_refresh_tokens", "pending_sign_ups", "person_identities", "person_recovery_codes", "person_sessions", "person_tokens", "persons", "policies", "policy_acknowledgements",
      "policy_versions", "projects", "rate_limit_counters", "recipient_minute_stats", "rules", "session_import_fingerprints", "session_import_rows", "session_imports", "session_state_events", "sign_in_failures",
      "usage_reports", "webhook_outbox", "webhooks", "workspace_minute_stats", "workspace_plans", "workspaces",
    ],
  );
  // The hand-written migration: storage parameters of the hot queue tables.
  const [messages] = await sql<{ reloptions: string[] }[]>`
    select c.reloptions from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and c.relname = 'messages'`;
  expect(messages?.reloptions).toContain("autovacuum_vacuum_scale_factor=0.01");
});

it("0010 moves the sealed chains into audit_chain and queues the unsealed rows; audit_log keeps every row, without seal columns", async () => {
  const { sealAuditChain, verifyAuditChain } = await import("@agentq/core");
  const { makeAuditEntry, TEST_PUBLIC_BASE_URL, TEST_SECRETS } = await import("@agentq/core/testing");
  const { PgAuditLog } = await import("./pg-audit-log.ts");
  const target = `t_migrate_0010_${randomBytes(4).toString("hex")}`;
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const upTo = migrations.findIndex((m) => m.sql.join("\n").includes("audit_unsealed"));
  expect(upTo).toBeGreaterThan(0);
  const run = (statements: string[]) =>
    sql.begin(async (tx) => {
      await tx`select set_config('search_path', ${target}, true)`;
      for (const s of statements) if (s.trim() !== "") await tx.unsafe(s);
    });
  try {
    await sql`create schema ${sql(target)}`;
    await run(migrations.slice(0, upTo).flatMap((m) => m.sql));
    // Three rows sealed the old way (seq, prev_hash, hash, sealed_at on the row), one unsealed.
    const scoped = postgres(testDatabaseUrl(), { max: 2, onnotice: () => undefined, connection: { search_path: target } });
    try {
      const base = Date.now();
      const rows = Array.from({ length: 4 }, (_, i) => makeAuditEntry("ws1", { occurredAt: new Date(base + i), details: { i } }));
      const { auditChainHash, GENESIS_HASH } = await import("@agentq/core");
      let prev = GENESIS_HASH;
      for (const [i, r] of rows.entries()) {
        const sealed = i < 3;
        const hash = sealed ? auditChainHash(prev, r, i + 1) : null;
        await scoped`
          insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id, seq, prev_hash, hash, sealed_at)
          values (${r.workspaceId}, ${r.id}, ${r.occurredAt}, ${r.activity}, ${r.actorAccountId}, ${r.actorCredentialId}, ${r.subjectType}, ${r.subjectId}, ${r.messageId}, ${scoped.json(r.details as postgres.JSONValue)}::jsonb, ${r.operatorSignificant}, ${r.requestId},
                  ${sealed ? i + 1 : null}, ${sealed ? prev : null}, ${hash}, ${sealed ? new Date(base) : null})`;
        if (hash !== null) prev = hash;
      }
      await run(migrations.slice(upTo).flatMap((m) => m.sql));
      const columns = await sql<{ column_name: string }[]>`select column_name from information_schema.columns where table_schema = ${target} and table_name = 'audit_log'`;
      expect(columns.map((c) => c.column_name)).not.toEqual(expect.arrayContaining(["seq"]));
      const audit = new PgAuditLog(scoped, scoped);
      const moved = await audit.readChain({ workspaceId: "ws1", afterSeq: 0, limit: 10 });
      expect(moved.map((r) => r.id)).toEqual(rows.slice(0, 3).map((r) => r.id));
      expect(verifyAuditChain(moved)).toMatchObject({ ok: true, checked: 3 });
      expect(await audit.workspacesToSeal({ limit: 10 })).toEqual(["ws1"]);
      expect(await sealAuditChain({ stores: { audit }, clock: { now: () => new Date(base) }, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL }, "ws1")).toBe(1);
      const chain = await audit.readChain({ workspaceId: "ws1", afterSeq: 0, limit: 10 });
      expect(chain.map((r) => r.id)).toEqual(rows.map((r) => r.id));
      expect(verifyAuditChain(chain)).toMatchObject({ ok: true, checked: 4 });
    } finally {
      await scoped.end({ timeout: 5 });
    }
  } finally {
    await sql`drop schema if exists ${sql(target)} cascade`;
  }
});

it("0019 lists every sealed chain on the tree's backlog; the sealer then builds each tree and signs a checkpoint, rewriting no audit row or link", async () => {
  const { auditChainHash, GENESIS_HASH, auditLogKeys, auditLeafHash, TreeFrontier, openNote, parseVerifierKey, sealAuditChains } = await import("@agentq/core");
  const { makeAuditEntry, TEST_PUBLIC_BASE_URL, TEST_SECRETS } = await import("@agentq/core/testing");
  const { PgAuditLog, PgAuditTree } = await import("./pg-audit-log.ts");
  const target = `t_migrate_0019_${randomBytes(4).toString("hex")}`;
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const upTo = migrations.findIndex((m) => m.sql.join("\n").includes("audit_tree_hashes"));
  expect(upTo).toBeGreaterThan(0);
  const run = (statements: string[]) =>
    sql.begin(async (tx) => {
      await tx`select set_config('search_path', ${target}, true)`;
      for (const s of statements) if (s.trim() !== "") await tx.unsafe(s);
    });
  try {
    await sql`create schema ${sql(target)}`;
    await run(migrations.slice(0, upTo).flatMap((m) => m.sql));
    const scoped = postgres(testDatabaseUrl(), { max: 2, onnotice: () => undefined, connection: { search_path: target } });
    try {
      // Two workspaces' chains sealed before 0019 (links written as the earlier sealer wrote them), one row still unsealed.
      const base = Date.now();
      const audit = new PgAuditLog(scoped, scoped);
      const frontiers = new Map<string, ReturnType<typeof TreeFrontier.empty>>();
      for (const ws of ["wsA", "wsB"]) {
        let prev = GENESIS_HASH;
        const frontier = TreeFrontier.empty();
        for (let i = 0; i < 5; i++) {
          const r = makeAuditEntry(ws, { occurredAt: new Date(base + i), details: { i } });
          await audit.append({ entry: r });
          const hash = auditChainHash(prev, r, i + 1);
          await scoped`insert into audit_chain (workspace_id, seq, audit_id, prev_hash, hash, sealed_at) values (${ws}, ${i + 1}, ${r.id}, ${prev}, ${hash}, ${new Date(base)})`;
          await scoped`delete from audit_unsealed where audit_id = ${r.id}`;
          frontier.append(auditLeafHash(r, i + 1));
          prev = hash;
        }
        frontiers.set(ws, frontier);
      }
      const versions = async () => (await scoped<{ v: string }[]>`select xmin::text || ':' || id as v from audit_log union all select xmin::text || ':' || audit_id from audit_chain order by 1`).map((r) => r.v);
      const before = await versions();
      await run(migrations.slice(upTo).flatMap((m) => m.sql));
      expect((await scoped<{ workspace_id: string }[]>`select workspace_id from audit_tree_backlog order by 1`).map((r) => r.workspace_id)).toEqual(["wsA", "wsB"]);
      expect((await audit.workspacesToSeal({ limit: 10 })).sort()).toEqual(["wsA", "wsB"]);
      const deps = { stores: { audit }, clock: { now: () => new Date(base) }, secrets: TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL };
      expect(await sealAuditChains(deps)).toBe(0);
      expect(await audit.workspacesToSeal({ limit: 10 })).toEqual([]);
      const tree = new PgAuditTree(scoped);
      const verifier = parseVerifierKey(auditLogKeys(deps).signer.verifierKey);
      for (const ws of ["wsA", "wsB"]) {
        const checkpoint = await tree.latestCheckpoint({ workspaceId: ws });
        expect(checkpoint?.treeSize).toBe(5);
        expect(checkpoint?.rootHash).toEqual(frontiers.get(ws)?.root());
        expect(openNote(checkpoint?.note ?? "", verifier === null ? [] : [verifier])).toMatchObject({ kind: "verified" });
      }
      expect(await versions()).toEqual(before);
    } finally {
      await scoped.end({ timeout: 5 });
    }
  } finally {
    await sql`drop schema if exists ${sql(target)} cascade`;
  }
});
