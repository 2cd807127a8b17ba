import { testDatabaseUrl } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "../testing/scratch-database.ts";
import { runPnpm, serverEnv, spawnServer, type SpawnedServer } from "../testing/spawn-server.ts";

// `pnpm admin workspace ...` as an operator types it, in a subprocess from the repository root,
// against the database of a running server; the change shows through the API at once.
describe("pnpm admin workspace plan|freeze|unfreeze", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;
  let workspaceId: string;
  let token: string;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url);
    server = await spawnServer(env);
    // `-s`: without it pnpm prints its script banner before the JSON line (README says so).
    const boot = await runPnpm(["-s", "bootstrap", "--workspace", "planned", "--email", "ops@planned.test", "--json"], env);
    expect(boot.code, boot.stderr).toBe(0);
    ({ workspace_id: workspaceId, token } = JSON.parse(boot.stdout) as { workspace_id: string; token: string });
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGTERM");
    await server.exited;
    await db.drop();
  });

  // `pnpm admin ...` prints pnpm's script banner, then the command's one JSON line.
  const lastLineJson = (stdout: string): unknown => JSON.parse(stdout.trim().split("\n").at(-1) ?? "");

  const createAccount = async (name: string) => {
    const res = await fetch(`${server.baseUrl}/v1/ai-accounts`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ friendly_name: name }) });
    return { status: res.status, body: (await res.json()) as { error?: { code: string } } };
  };

  it("sets a cap that the API enforces, then lifts it as the docs show, in force at once", async () => {
    // The bootstrap made one account (admin); a cap of 2 leaves room for one more.
    const capped = await runPnpm(["admin", "workspace", "plan", workspaceId, "free", "--set", "ai_accounts=2"], env);
    expect(capped.code, capped.stderr).toBe(0);
    expect(lastLineJson(capped.stdout)).toMatchObject({ workspace_id: workspaceId, plan: "free", overrides: { aiAccounts: 2 }, limits: { aiAccounts: 2 } });
    expect((await createAccount("first")).status).toBe(201);
    const refused = await createAccount("second");
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe("SVC_PLAN_LIMIT_EXCEEDED");

    // docs/guard-rails.md: lifting the cap. The server learns of it by NOTIFY, not after its 30 s cache.
    const lifted = await runPnpm(["admin", "workspace", "plan", workspaceId, "enterprise", "--set", "ai_accounts=unlimited", "--reason", "contract 42"], env);
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lastLineJson(lifted.stdout)).toMatchObject({ plan: "enterprise", limits: { aiAccounts: null } });
    expect((await createAccount("second")).status).toBe(201);
  });

  it("refuses bad usage with exit 2 and a refused change with exit 1 and the code", async () => {
    for (const args of [["plan", workspaceId, "gold"], ["plan", workspaceId], ["launch", workspaceId]]) {
      expect((await runPnpm(["admin", "workspace", ...args], env)).code).toBe(2);
    }
    const badOverride = await runPnpm(["admin", "workspace", "plan", workspaceId, "free", "--set", "seats=3"], env);
    expect(badOverride.code).toBe(1);
    expect(badOverride.stderr).toMatch(/^SVC_MALFORMED_REQUEST: /);
    const unknown = await runPnpm(["admin", "workspace", "plan", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "free"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^SVC_RESOURCE_NOT_FOUND: /);
    const help = await runPnpm(["admin", "workspace", "--help"], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("plan");
  });

  it("freezes and unfreezes: the next request gets 403 SVC_FROZEN, then works again", async () => {
    const frozen = await runPnpm(["admin", "workspace", "freeze", workspaceId, "--reason", "abuse report 7"], env);
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(lastLineJson(frozen.stdout)).toEqual({ workspace_id: workspaceId, state: "frozen" });
    const refused = await createAccount("third");
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe("SVC_FROZEN");
    expect((await runPnpm(["admin", "workspace", "unfreeze", workspaceId], env)).code).toBe(0);
    expect((await createAccount("third")).status).toBe(201);
  });
});
