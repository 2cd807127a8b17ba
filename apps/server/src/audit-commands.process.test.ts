import { testDatabaseUrl } from "@agentq/postgres/testing";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { runServerCommand, serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// `pnpm audit:export` and `pnpm audit:verify` as the processes users run, against the real
// server process: export a sealed chain to a file, verify it (exit 0), change one line, and
// verify again (exit 13, a row that does not match, naming the line).
describe("the audit commands against a running server", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;
  let dir: string;
  let token: string;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url);
    server = await spawnServer(env);
    dir = mkdtempSync(join(tmpdir(), "agentq-audit-"));
    const boot = await runServerCommand("src/bootstrap.ts", ["--workspace", "audited", "--email", "ops@audited.test", "--json"], env);
    expect(boot.code, boot.stderr).toBe(0);
    token = (JSON.parse(boot.stdout) as { token: string }).token;
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGTERM");
    await server.exited;
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it("exports the sealed chain, verifies it, and reports a changed line", async () => {
    // A few audited mutations: two accounts created, one renamed.
    const planner = await call("POST", "/v1/ai-accounts", { friendly_name: "planner" });
    expect(planner.status).toBe(201);
    expect((await call("POST", "/v1/ai-accounts", { friendly_name: "builder" })).status).toBe(201);
    expect((await call("PATCH", `/v1/ai-accounts/${planner.body.id as string}`, { friendly_name: "planner-2" })).status).toBe(200);

    // The server's background sealer links the rows within about a second.
    let audit: Record<string, any> = {};
    for (let i = 0; i < 40; i++) {
      const read = await call("GET", "/v1/audit-log?limit=100");
      audit = read.body;
      if (read.status === 200 && audit.items.length >= 3 && audit.items.every((row: { sealed_at: string | null }) => row.sealed_at !== null)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const rows = (audit.items ?? []) as { sealed_at: string | null }[];
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.every((row) => row.sealed_at !== null)).toBe(true);

    const file = join(dir, "chain.jsonl");
    const commandEnv = { ...env, SVC_CREDENTIAL: token, SVC_BASE_URL: server.baseUrl, INIT_CWD: dir };
    const exported = await runServerCommand("src/audit-export.ts", ["--out", "chain.jsonl"], commandEnv);
    expect(exported.code, `${exported.stderr}\n${server.output().slice(-3000)}`).toBe(0);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(rows.length);
    expect(lines.map((l) => (JSON.parse(l) as { activity?: string }).activity)).toContain("ai_account.renamed");

    const verified = await runServerCommand("src/audit-verify.ts", [file], commandEnv);
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ verified: true, rows: lines.length });

    // Rewrite the history of one row: the account's old name never existed.
    const index = lines.findIndex((l) => l.includes('"ai_account.renamed"'));
    const changed = lines.map((l, i) => (i === index ? l.replace('"planner-2"', '"someone-else"') : l));
    expect(changed[index]).not.toBe(lines[index]);
    writeFileSync(file, `${changed.join("\n")}\n`);
    const tampered = await runServerCommand("src/audit-verify.ts", [file], commandEnv);
    // Exit 13: a row that does not match its chain hash (the class of `agentq receipt verify`).
    expect(tampered.code).toBe(13);
    expect(JSON.parse(tampered.stdout)).toMatchObject({ verified: false, line: index + 1, reason: "changed" });
    expect(tampered.stderr).toContain(`line ${index + 1}`);
  });
});
