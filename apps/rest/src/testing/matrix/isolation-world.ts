import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES } from "@agentq/core";
import type { WebhookTransport } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps } from "@agentq/core/testing";
import type { AccessScenarioWorkspace, InMemoryWorld } from "@agentq/core/testing";
import type { Hono } from "hono";
import { createRestApp } from "../../app.ts";
import type { RestEnv } from "../../rest-env.ts";
import { call } from "../call.ts";
import type { CallResult } from "../call.ts";
import { createAgent, directiveTo } from "../rest-scenario.ts";
import type { RestAgent } from "../rest-scenario.ts";
import { recordingLogger } from "../test-app.ts";

/** A destination that answers every probe and delivery 204 (no network), counting requests. */
export class AcceptingTransport implements WebhookTransport {
  requests = 0;
  async post(): Promise<Awaited<ReturnType<WebhookTransport["post"]>>> {
    this.requests++;
    return { kind: "response", status: 204 };
  }
}

/** One resource of workspace A that a path parameter can name. */
export interface NamedResource {
  /** What it is, for test names ("leased message", "dead letter", ...). */
  label: string;
  id: string;
}

/** Workspace A with one of each resource kind, and workspace B's two principals. */
export interface IsolationWorld {
  world: InMemoryWorld;
  app: Hono<RestEnv>;
  transport: AcceptingTransport;
  a: {
    admin: AccessScenarioWorkspace;
    /** The admin's account and credential ids (bootstrap). */
    adminAccountId: string;
    adminCredentialId: string;
    sender: RestAgent;
    worker: RestAgent;
    /** Sent by sender to worker, claimed by worker (lease PT600S, so it holds all test long). */
    leasedMessageId: string;
    leaseId: string;
    /** Sent to worker and dead-lettered past max_deliveries. */
    deadLetterId: string;
    webhookId: string;
    policyId: string;
    /** Every string of A's that B must never see: ids, unique names, tokens, payload text. */
    secrets: readonly string[];
  };
  b: { admin: AccessScenarioWorkspace; operational: RestAgent };
}

/** Unique names of A's records (no other test data contains them). */
export const A_NAMES = {
  workspace: "isolation-alpha-workspace",
  sender: "alpha-sender-q7",
  worker: "alpha-worker-q7",
  webhook: "alpha-hook-q7",
  webhookUrl: "https://alpha-hooks-q7.example.com/in",
  policy: "alpha-conduct-q7",
  instructions: "alpha-secret-instructions-q7",
} as const;

function ok(res: CallResult, what: string): CallResult {
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

/**
 * Builds workspaces A and B over fresh in-memory deps, through the REST API as their users
 * would (a webhook transport that accepts everything stands in for the network).
 */
export async function buildIsolationWorld(): Promise<IsolationWorld> {
  const world = createInMemoryDeps();
  const transport = new AcceptingTransport();
  // Before createRestApp: the app copies the deps.
  world.deps.webhookTransport = transport;
  const app = createRestApp(world.deps, { logger: recordingLogger() });

  const admin = await bootstrapScenarioWorkspace(world, A_NAMES.workspace);
  const sender = await createAgent(app, admin, A_NAMES.sender, OPERATIONAL_SCOPES);
  const worker = await createAgent(app, admin, A_NAMES.worker, OPERATIONAL_SCOPES);
  const send = async (): Promise<string> => {
    const body = directiveTo(A_NAMES.worker);
    (body.payload as Record<string, unknown>).instructions = A_NAMES.instructions;
    return ok(await call(app, "POST", "/v1/messages/send", { authorization: sender.authorization, key: `send-${world.deps.ids.next()}`, body }), "send").body.message_id as string;
  };

  // A dead letter: claimed and let expire until a claim finds it past max_deliveries.
  const deadLetterId = await send();
  for (let i = 0; i < 50; i++) {
    const claimed = ok(await call(app, "POST", "/v1/messages/get-pending", { authorization: worker.authorization, body: { visibility_timeout: "PT10S" } }), "claim");
    if (claimed.body.items.length === 0) break;
    world.clock.advance(11_000);
  }
  const dead = ok(await call(app, "GET", "/v1/dead-letters", { authorization: admin.authorization }), "list dead letters");
  if (!(dead.body.items as { envelope: { message_id: string } }[]).some((d) => d.envelope.message_id === deadLetterId)) throw new Error(`no dead letter: ${dead.text}`);

  // A message held under a lease for the rest of the test (the clock does not move again).
  const leasedMessageId = await send();
  const claim = ok(await call(app, "POST", "/v1/messages/get-pending", { authorization: worker.authorization, body: { visibility_timeout: "PT600S" } }), "claim");
  const item = (claim.body.items as { envelope: { message_id: string }; lease: { lease_id: string } }[]).find((i) => i.envelope.message_id === leasedMessageId);
  if (item === undefined) throw new Error(`claim: ${claim.text}`);

  const webhook = ok(await call(app, "POST", "/v1/webhooks", { authorization: admin.authorization, key: "a-webhook", body: { ai_account_id: worker.id, url: A_NAMES.webhookUrl, name: A_NAMES.webhook } }), "create webhook");
  const policy = ok(await call(app, "POST", "/v1/policies", { authorization: admin.authorization, key: "a-policy", body: { name: A_NAMES.policy, body: "Be kind.", required: false } }), "publish policy");
  const me = ok(await call(app, "GET", "/v1/me", { authorization: admin.authorization }), "admin me");

  const bAdmin = await bootstrapScenarioWorkspace(world, "isolation-beta-workspace");
  const bOperational = await createAgent(app, bAdmin, "beta-agent", OPERATIONAL_SCOPES);
  if (ADMINISTRATIVE_SCOPES.some((s) => !bAdmin.principal.credential.scopes.includes(s))) throw new Error("B's admin lacks an administrative scope");

  const a = {
    admin,
    adminAccountId: me.body.ai_account.id as string,
    adminCredentialId: me.body.credential.id as string,
    sender,
    worker,
    leasedMessageId,
    leaseId: item.lease.lease_id,
    deadLetterId,
    webhookId: webhook.body.webhook.id as string,
    policyId: policy.body.id as string,
  };
  const tokens = [admin.authorization, sender.authorization, worker.authorization].map((h) => h.slice("Bearer ".length));
  const secrets = [
    admin.workspace_id, a.adminAccountId, a.adminCredentialId, sender.id, sender.credentialId, worker.id, worker.credentialId,
    leasedMessageId, a.leaseId, deadLetterId, a.webhookId, a.policyId, ...Object.values(A_NAMES), ...tokens,
  ];
  return { world, app, transport, a: { ...a, secrets }, b: { admin: bAdmin, operational: bOperational } };
}
