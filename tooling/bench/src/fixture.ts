import type postgres from "postgres";
import { apiClient, expectStatus } from "./http-client.ts";
import { bootstrap, type ServerProcess } from "./server-process.ts";

/** An AI account of the benchmark workspace with an operational credential holding every messaging scope. */
export interface BenchAccount {
  id: string;
  name: string;
  token: string;
}

/** The benchmark workspace: its id, the sender, and the recipients each scenario uses. */
export interface BenchFixture {
  workspaceId: string;
  /** The workspace's administrative (bootstrap) token. */
  adminToken: string;
  sender: BenchAccount;
  /** An account whose credential may write session-state records and projects (S8). */
  sessionAgent: BenchAccount;
  account(name: string): BenchAccount;
}

/** Per-minute request limits far above anything the benchmark sends. */
export const UNLIMITED = { credentialRequestsPerMinute: 1_000_000_000, workspaceRequestsPerMinute: 1_000_000_000 };

/** Recipients: one per scenario, so no scenario sees another's messages. */
export const RECIPIENTS = ["l1", "sink", "drain", "drainbatch", "wake0", "wake1", "wake2", "wake3", "mcp", "soak"] as const;

/**
 * Bootstraps a workspace, lifts its plan to enterprise (no monthly message cap: the soak alone
 * sends 1,000,000) with request-rate overrides no run reaches (the rate limiter stays in the
 * path, as in production, but never refuses), with one SQL statement, then creates the sender and the recipients over
 * REST, each with an operational credential.
 */
export async function createFixture(server: ServerProcess, sql: postgres.Sql): Promise<BenchFixture> {
  const boot = await bootstrap(server);
  await sql`insert into workspace_plans (workspace_id, plan, overrides, updated_at) values (${boot.workspace_id}, 'enterprise', ${sql.json(UNLIMITED)}::jsonb, now())
            on conflict (workspace_id) do update set plan = 'enterprise', overrides = excluded.overrides, updated_at = now()`;
  const client = apiClient(server.baseUrl, 4);
  try {
    const make = async (name: string, scopes: readonly string[] = ["send", "get_pending", "ack", "nack", "list_recipients"]): Promise<BenchAccount> => {
      const account = expectStatus(await client.call(boot.token, "POST", "/v1/ai-accounts", { friendly_name: name }), 201, `create AI account ${name}`);
      const id = account.body.id as string;
      const credential = expectStatus(
        await client.call(boot.token, "POST", "/v1/credentials", { ai_account_id: id, tier: "operational", scopes, name: "bench" }),
        201,
        `issue credential of ${name}`,
      );
      return { id, name, token: credential.body.token as string };
    };
    const sender = await make("producer");
    const sessionAgent = await make("rules", ["manage_projects", "write_session_state"]);
    const recipients = new Map<string, BenchAccount>();
    for (const name of RECIPIENTS) recipients.set(name, await make(name));
    return {
      workspaceId: boot.workspace_id,
      adminToken: boot.token,
      sender,
      sessionAgent,
      account(name) {
        const a = recipients.get(name);
        if (a === undefined) throw new Error(`no bench account ${name}`);
        return a;
      },
    };
  } finally {
    await client.close();
  }
}

/** The payload every scenario sends (template `directive`, about 200 bytes). */
export const PAYLOAD = {
  directive_kind: "build",
  summary: "Benchmark message: build the artefact and report back",
  instructions: "Check out the branch, run the build with the default profile, attach the log summary to the outcome, and acknowledge when done.",
};
