import { bootstrapWorkspace } from "@agentq/core";
import { createPgDeps } from "@agentq/postgres";
import { deriveSecrets } from "@agentq/runtime";
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
 * One tenant: a workspace bootstrapped in the bench's process (core `bootstrapWorkspace` over
 * the run's database, with the server's secrets, so its token works on the server: 100 runs of
 * `pnpm bootstrap` would take minutes), lifted to enterprise like the fixture's, then a sender
 * (scope send) and a recipient `sink` created over REST.
 */
async function createTenant(ctx: BenchContext, client: ApiClient, deps: ReturnType<typeof createPgDeps>, n: number): Promise<Tenant> {
  const boot = await bootstrapWorkspace(deps, { workspaceName: `tenant-${n}`, email: `tenant-${n}@bench.example.test` });
  await ctx.sql`insert into workspace_plans (workspace_id, plan, overrides, updated_at)
                values (${boot.workspace_id}, 'enterprise', ${ctx.sql.json({ credentialRequestsPerMinute: 1_000_000_000, workspaceRequestsPerMinute: 1_000_000_000 })}::jsonb, now())
                on conflict (workspace_id) do update set plan = 'enterprise', overrides = excluded.overrides, updated_at = now()`;
  const make = async (name: string) => expectStatus(await client.call(boot.token, "POST", "/v1/ai-accounts", { friendly_name: name }), 201, `tenant ${n}: create ${name}`).body.id as string;
  const senderId = await make("producer");
  await make("sink");
  const credential = expectStatus(await client.call(boot.token, "POST", "/v1/credentials", { ai_account_id: senderId, tier: "operational", scopes: ["send"], name: "bench" }), 201, `tenant ${n}: credential`);
  return { token: credential.body.token as string };
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
  const deps = createPgDeps({ sql: ctx.sql, secrets: deriveSecrets(secretKey) });
  const setup = apiClient(ctx.server.baseUrl, 4);
  const tenants: Tenant[] = [];
  try {
    ctx.log(`S7 multi-tenant mix: bootstrapping ${TENANTS} workspaces`);
    for (let n = 0; n < TENANTS; n++) tenants.push(await createTenant(ctx, setup, deps, n));
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
