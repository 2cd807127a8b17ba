import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { bootstrapWorkspace as BootstrapWorkspace } from "@agentq/core";
import type { createPgDeps as CreatePgDeps } from "@agentq/postgres";
import type { deriveSecrets as DeriveSecrets } from "@agentq/runtime";
import type { BenchContext } from "./context.ts";
import { apiClient, expectStatus, type ApiClient } from "./http-client.ts";
import { runLoad } from "./load.ts";
import { sendOne } from "./rest-scenarios.ts";
import { perSecond, summarise } from "./stats.ts";

/** Workspaces of the multi-tenant mix. */
export const TENANTS = 100;
/** Sends in flight in both phases of S7 (compared with S1 at the same level). */
export const TENANTS_IN_FLIGHT = 32;

interface Tenant {
  token: string;
}

/**
 * One tenant: a workspace bootstrapped in the bench's process (core `bootstrapWorkspace` (the server checkout's) over
 * the run's database, with the server's secrets, so its token works on the server: 100 runs of
 * `pnpm bootstrap` would take minutes), lifted to enterprise like the fixture's, then a sender
 * (scope send) and a recipient `sink` created over REST.
 */
async function createTenant(ctx: BenchContext, client: ApiClient, store: StoreCode, deps: ReturnType<typeof CreatePgDeps>, n: number): Promise<Tenant> {
  const boot = await store.bootstrapWorkspace(deps, { workspaceName: `tenant-${n}`, email: `tenant-${n}@bench.example.test` });
  await ctx.sql`insert into workspace_plans (workspace_id, plan, overrides, updated_at)
                values (${boot.workspace_id}, 'enterprise', ${ctx.sql.json({ credentialRequestsPerMinute: 1_000_000_000, workspaceRequestsPerMinute: 1_000_000_000 })}::jsonb, now())
                on conflict (workspace_id) do update set plan = 'enterprise', overrides = excluded.overrides, updated_at = now()`;
  const make = async (name: string) => expectStatus(await client.call(boot.token, "POST", "/v1/ai-accounts", { friendly_name: name }), 201, `tenant ${n}: create ${name}`).body.id as string;
  const senderId = await make("producer");
  await make("sink");
  const credential = expectStatus(await client.call(boot.token, "POST", "/v1/credentials", { ai_account_id: senderId, tier: "operational", scopes: ["send"], name: "bench" }), 201, `tenant ${n}: credential`);
  return { token: credential.body.token as string };
}

/** The store code the tenants are bootstrapped with. */
interface StoreCode {
  bootstrapWorkspace: typeof BootstrapWorkspace;
  createPgDeps: typeof CreatePgDeps;
  deriveSecrets: typeof DeriveSecrets;
}

/**
 * The core, the PostgreSQL store and the secrets' derivation of the checkout the server was built
 * from: the tenants' rows must match its schema (`--server-dir` runs another checkout's server on
 * a database its own migrations made). `deriveSecrets` moved from apps/server to packages/runtime.
 */
async function storeCodeOf(serverDir: string): Promise<StoreCode> {
  const root = resolve(serverDir, "../..");
  const load = <T>(path: string) => import(pathToFileURL(join(root, path)).href) as Promise<T>;
  const secretsAt = existsSync(join(root, "packages/runtime/src/index.ts")) ? "packages/runtime/src/index.ts" : "apps/server/src/index.ts";
  const [core, pg, runtime] = await Promise.all([
    load<Pick<StoreCode, "bootstrapWorkspace">>("packages/core/src/index.ts"),
    load<Pick<StoreCode, "createPgDeps">>("packages/postgres/src/index.ts"),
    load<Pick<StoreCode, "deriveSecrets">>(secretsAt),
  ]);
  return { bootstrapWorkspace: core.bootstrapWorkspace, createPgDeps: pg.createPgDeps, deriveSecrets: runtime.deriveSecrets };
}

/**
 * S7: the multi-tenant mix. 100 workspaces, each with its own sender and recipient; sends at 32
 * in flight first all to ONE of them, then spread over all 100 (each send to the next
 * workspace in turn), for the same duration each, back to back: what sharing one PostgreSQL
 * among many tenants costs (or saves: no two sends of one workspace meet) against one busy
 * workspace.
 */
export async function runTenants(ctx: BenchContext): Promise<void> {
  const secretKey = ctx.server.env.SVC_SECRET_KEY;
  if (secretKey === undefined) throw new Error("S7: the server's SVC_SECRET_KEY is not known");
  const store = await storeCodeOf(ctx.server.serverDir);
  const deps = store.createPgDeps({ sql: ctx.sql, secrets: store.deriveSecrets(secretKey) });
  const setup = apiClient(ctx.server.baseUrl, 4);
  const tenants: Tenant[] = [];
  try {
    ctx.log(`S7 multi-tenant mix: bootstrapping ${TENANTS} workspaces`);
    for (let n = 0; n < TENANTS; n++) tenants.push(await createTenant(ctx, setup, store, deps, n));
  } finally {
    await setup.close();
  }
  const client = apiClient(ctx.server.baseUrl, TENANTS_IN_FLIGHT);
  try {
    for (const t of tenants) await sendOne(client, t.token, "sink", "s7warm");
    for (const phase of ["one", "mix"] as const) {
      let next = 0;
      const tokenFor = () => (phase === "one" ? (tenants[0] as Tenant) : (tenants[next++ % TENANTS] as Tenant)).token;
      ctx.log(`S7 ${phase === "one" ? "one workspace" : `${TENANTS} workspaces`}, ${TENANTS_IN_FLIGHT} in flight, ${ctx.sizes.levelMs / 1000} s`);
      const r = await runLoad({ name: `S7.${phase}`, inFlight: TENANTS_IN_FLIGHT, maxOps: 10_000_000, maxMs: ctx.sizes.levelMs, op: () => sendOne(client, tokenFor(), "sink", "s7").then(() => undefined), log: ctx.log });
      const s = summarise(r.latencies);
      ctx.m.set(`S7.${phase}@${TENANTS_IN_FLIGHT}`, perSecond(r.count, r.elapsedMs));
      ctx.m.set(`S7.${phase}.p50@${TENANTS_IN_FLIGHT}`, s.p50);
      ctx.log(`  ${perSecond(r.count, r.elapsedMs).toFixed(0)} sends/s, p50 ${s.p50.toFixed(2)} ms`);
    }
  } finally {
    await client.close();
    await deps.close();
  }
}
