import { ADMINISTRATIVE_SCOPES, bootstrapWorkspace, OPERATIONAL_SCOPES } from "@agentq/core";
import type { Role, WebhookTransport } from "@agentq/core";
import { connectForTest, createInMemoryDeps } from "@agentq/core/testing";
import { createRestApp } from "../../app.ts";
import { directiveTo } from "../rest-scenario.ts";
import { recordingLogger } from "../test-app.ts";
import { openMatrixSession, type MatrixPerson } from "./person-session.ts";
import { matrixCall } from "./route-request.ts";
import type { MatrixResult, RequestClient } from "./route-request.ts";

/** A destination that answers every probe and delivery 204 (no network), counting requests. */
export class AcceptingTransport implements WebhookTransport {
  requests = 0;
  async post(): Promise<Awaited<ReturnType<WebhookTransport["post"]>>> {
    this.requests++;
    return { kind: "response", status: 204 };
  }
}

/**
 * The service the isolation matrix runs against: in memory (`inMemoryMatrixTarget`) or the
 * composed server over PostgreSQL. Its webhook transport must accept every probe without the
 * network (`AcceptingTransport`).
 */
export interface MatrixTarget {
  client: RequestClient;
  /** Bootstraps a workspace; returns its id and its admin's Authorization header. */
  bootstrap(name: string): Promise<{ workspaceId: string; authorization: string }>;
  /** Sets a workspace's max_deliveries (before any of its credentials is first used). */
  setMaxDeliveries(workspaceId: string, n: number): Promise<void>;
  /** Adds a person with `role` to a workspace and opens a session for them (`openMatrixSession`). */
  openPersonSession(workspaceId: string, email: string, role: Role): Promise<MatrixPerson>;
  /** Connects an OAuth client acting as the AI account (through the core: register, approve, exchange); the grant's id and tokens. */
  connectOAuthClient(workspaceId: string, aiAccountId: string): Promise<{ grantId: string; accessToken: string; refreshToken: string }>;
  /** Releases what the target holds (pools, schemas). */
  close(): Promise<void>;
}

/** The REST app over fresh in-memory deps. */
export function inMemoryMatrixTarget(): MatrixTarget {
  const world = createInMemoryDeps();
  // Before createRestApp: the app copies the deps.
  world.deps.webhookTransport = new AcceptingTransport();
  const app = createRestApp(world.deps, { logger: recordingLogger() });
  return {
    client: app,
    async bootstrap(name) {
      const r = await bootstrapWorkspace(world.deps, { workspaceName: name, email: `${name}@example.test` });
      return { workspaceId: r.workspace_id, authorization: `Bearer ${r.token}` };
    },
    async setMaxDeliveries(workspaceId, n) {
      const ws = world.tables.access.workspaces.get(workspaceId);
      if (ws === undefined) throw new Error(`no workspace ${workspaceId}`);
      world.tables.access.workspaces.set(null, workspaceId, { ...ws, maxDeliveries: n });
    },
    openPersonSession: (workspaceId, email, role) => openMatrixSession(world.deps, { workspaceId, email, role }),
    async connectOAuthClient(workspaceId, aiAccountId) {
      const { grantId, tokens } = await connectForTest(world.deps, { workspaceId, aiAccountId });
      return { grantId, accessToken: tokens.access_token, refreshToken: tokens.refresh_token ?? "" };
    },
    async close() {},
  };
}

/** An AI account made through the API, with an operational credential carrying every operational scope. */
export interface MatrixAgent {
  id: string;
  name: string;
  credentialId: string;
  authorization: string;
}

/** A workspace's admin (bootstrap credential). */
export interface MatrixAdmin {
  workspaceId: string;
  authorization: string;
  accountId: string;
  credentialId: string;
}

/** One workspace with one record of each kind (A's are what B aims at; B has its own, to aim references from). */
export interface WorkspaceRecords {
    admin: MatrixAdmin;
    sender: MatrixAgent;
    worker: MatrixAgent;
    /** Sent by sender to worker, claimed by worker (lease PT600S, so it holds all test long). */
    leasedMessageId: string;
    leaseId: string;
    /** Sent to worker and dead-lettered past max_deliveries (1 in A: claimed, nacked, claimed again). */
    deadLetterId: string;
    webhookId: string;
    policyId: string;
    /** A's default project (made by sender) and a decision in it, corrected once (the correction is the tip). */
    projectId: string;
    decisionId: string;
    correctionId: string;
    /** An active build session of sender's in that project, and an untriaged backlog item filed in it. */
    sessionId: string;
    backlogItemId: string;
    /** A lesson, a rule derived from it, and a pending lesson candidate (from an ended session's learnings). */
    lessonId: string;
    ruleId: string;
    candidateId: string;
    /** A previewed markdown import. */
    importId: string;
    /** A Connection (OAuth grant) of an MCP client acting as worker. */
    connectionId: string;
    /** An owner of the workspace, signed in (their session's headers). */
    owner: MatrixPerson;
    /** A viewer of the workspace (not signed in). */
    viewerPersonId: string;
    /** Every string of the workspace's that another must never see: ids, unique names, tokens, payload text. */
    secrets: readonly string[];
}

/**
 * Workspace A with one of each resource kind, and workspace B's two principals and records of
 * its own of each kind (made by its own sender and worker), so a request can name B's record in
 * its path and one of A's in a body field.
 */
export interface IsolationWorld {
  client: RequestClient;
  a: WorkspaceRecords;
  b: { admin: MatrixAdmin; operational: MatrixAgent; records: WorkspaceRecords };
}

/** Unique names of a workspace's records. */
export type RecordNames = { readonly [K in keyof typeof A_NAMES]: string };

/** Unique names of A's records (no other test data contains them). */
export const A_NAMES = {
  workspace: "isolation-alpha-workspace",
  sender: "alpha-sender-q7",
  worker: "alpha-worker-q7",
  webhook: "alpha-hook-q7",
  webhookUrl: "https://alpha-hooks-q7.example.com/in",
  policy: "alpha-conduct-q7",
  instructions: "alpha-secret-instructions-q7",
  project: "alpha-project-q7",
  decision: "alpha-decision-q7",
  session: "alpha-session-q7",
  backlogItem: "alpha-backlog-q7",
  lesson: "alpha-lesson-q7",
  learning: "alpha learning quokka seven",
  importedLesson: "alpha-imported-q7",
  ownerEmail: "alpha-owner-q7@example.test",
  viewerEmail: "alpha-viewer-q7@example.test",
} as const;

function ok(res: MatrixResult, what: string): MatrixResult {
  if (res.status < 200 || res.status > 299) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

let keys = 0;
const key = () => `isolation-setup-${++keys}`;

async function admin(target: MatrixTarget, name: string, setup?: (workspaceId: string) => Promise<void>): Promise<MatrixAdmin> {
  const bootstrapped = await target.bootstrap(name);
  const workspaceId = bootstrapped.workspaceId;
  await setup?.(workspaceId);
  const first = ok(await matrixCall(target.client, "GET", "/v1/me", { authorization: bootstrapped.authorization }), "admin me");
  // The bootstrap credential holds the scopes DESIGN §2 names; the matrix's admin holds every
  // administrative scope (approve_messages too), so no call of B's is refused for a scope alone.
  const issued = ok(
    await matrixCall(target.client, "POST", "/v1/credentials", { authorization: bootstrapped.authorization, key: key(), body: { ai_account_id: first.body.ai_account.id, tier: "administrative", scopes: ADMINISTRATIVE_SCOPES, name: `${name}-all-admin` } }),
    "issue every administrative scope",
  );
  const authorization = `Bearer ${issued.body.token as string}`;
  const me = ok(await matrixCall(target.client, "GET", "/v1/me", { authorization }), "admin me");
  const scopes = me.body.credential.scopes as string[];
  if (ADMINISTRATIVE_SCOPES.some((s) => !scopes.includes(s))) throw new Error(`${name}'s admin lacks an administrative scope: ${me.text}`);
  return { workspaceId, authorization, accountId: me.body.ai_account.id, credentialId: me.body.credential.id };
}

async function agent(client: RequestClient, ws: MatrixAdmin, name: string): Promise<MatrixAgent> {
  const account = ok(await matrixCall(client, "POST", "/v1/ai-accounts", { authorization: ws.authorization, key: key(), body: { friendly_name: name } }), `create ${name}`);
  const cred = ok(await matrixCall(client, "POST", "/v1/credentials", { authorization: ws.authorization, key: key(), body: { ai_account_id: account.body.id, tier: "operational", scopes: OPERATIONAL_SCOPES, name: `${name}-cred` } }), `issue ${name}`);
  return { id: account.body.id, name, credentialId: cred.body.credential.id, authorization: `Bearer ${cred.body.token as string}` };
}

/** B's names: like A's, none of A's names inside. */
const B_NAMES: RecordNames = Object.fromEntries(Object.entries(A_NAMES).map(([k, v]) => [k, v.replace("alpha", "beta").replace("q7", "k3")])) as RecordNames;

/** Builds workspaces A and B in `target`, through the REST API as their users would. */
export async function buildIsolationWorld(target: MatrixTarget): Promise<IsolationWorld> {
  const a = await buildWorkspaceRecords(target, A_NAMES);
  const records = await buildWorkspaceRecords(target, B_NAMES);
  const bOperational = await agent(target.client, records.admin, "beta-agent");
  return { client: target.client, a, b: { admin: records.admin, operational: bOperational, records } };
}

/** A workspace named `names.workspace` with one record of each kind, through the REST API as its users would make them. */
export async function buildWorkspaceRecords(target: MatrixTarget, names: RecordNames): Promise<WorkspaceRecords> {
  const { client } = target;
  const aAdmin = await admin(target, names.workspace, (id) => target.setMaxDeliveries(id, 1));
  const sender = await agent(client, aAdmin, names.sender);
  const worker = await agent(client, aAdmin, names.worker);
  const send = async (): Promise<string> => {
    const body = directiveTo(names.worker);
    (body.payload as Record<string, unknown>).instructions = names.instructions;
    return ok(await matrixCall(client, "POST", "/v1/messages/send", { authorization: sender.authorization, key: key(), body }), "send").body.message_id as string;
  };
  const claimOne = async (messageId: string, visibility: string): Promise<string> => {
    const claim = ok(await matrixCall(client, "POST", "/v1/messages/get-pending", { authorization: worker.authorization, body: { visibility_timeout: visibility } }), "claim");
    const item = (claim.body.items as { envelope: { message_id: string }; lease: { lease_id: string } }[]).find((i) => i.envelope.message_id === messageId);
    if (item === undefined) throw new Error(`claim of ${messageId}: ${claim.text}`);
    return item.lease.lease_id;
  };

  // A dead letter: with max_deliveries 1, claimed, nacked, and dead-lettered by the next claim.
  const deadLetterId = await send();
  const firstLease = await claimOne(deadLetterId, "PT10S");
  ok(await matrixCall(client, "POST", `/v1/messages/${deadLetterId}/nack`, { authorization: worker.authorization, body: { lease_id: firstLease } }), "nack");
  ok(await matrixCall(client, "POST", "/v1/messages/get-pending", { authorization: worker.authorization, body: {} }), "dead-lettering claim");
  const dead = ok(await matrixCall(client, "GET", "/v1/dead-letters", { authorization: aAdmin.authorization }), "list dead letters");
  if (!(dead.body.items as { envelope: { message_id: string } }[]).some((d) => d.envelope.message_id === deadLetterId)) throw new Error(`no dead letter: ${dead.text}`);

  // A message held under a lease for the rest of the run (PT600S, the longest).
  const leasedMessageId = await send();
  const leaseId = await claimOne(leasedMessageId, "PT600S");

  const webhook = ok(await matrixCall(client, "POST", "/v1/webhooks", { authorization: aAdmin.authorization, key: key(), body: { ai_account_id: worker.id, url: names.webhookUrl, name: names.webhook } }), "create webhook");
  const policy = ok(await matrixCall(client, "POST", "/v1/policies", { authorization: aAdmin.authorization, key: key(), body: { name: names.policy, body: "Be kind.", required: false } }), "publish policy");

  const project = ok(await matrixCall(client, "POST", "/v1/projects", { authorization: sender.authorization, body: { name: names.project } }), "create project");
  const decision = ok(await matrixCall(client, "POST", "/v1/decision-log", { authorization: sender.authorization, body: { title: names.decision, decision_md: `${names.decision} body` } }), "record decision");
  const correction = ok(await matrixCall(client, "POST", `/v1/decision-log/${decision.body.id as string}/correct`, { authorization: sender.authorization, body: { decision_md: `${names.decision} corrected`, rationale_md: "changed" } }), "correct decision");

  const session = ok(await matrixCall(client, "POST", "/v1/build-sessions", { authorization: sender.authorization, body: { title: names.session } }), "start session");
  const backlogItem = ok(await matrixCall(client, "POST", "/v1/backlog", { authorization: sender.authorization, body: { title: names.backlogItem } }), "file backlog item");
  const lesson = ok(await matrixCall(client, "POST", "/v1/lessons", { authorization: sender.authorization, body: { title: names.lesson, body_md: "Do: keep `alpha/**` tidy." } }), "create lesson");
  const rule = ok(await matrixCall(client, "POST", "/v1/rules/derive", { authorization: sender.authorization, body: { lesson_id: lesson.body.id } }), "derive rule");
  const learner = ok(await matrixCall(client, "POST", "/v1/build-sessions", { authorization: worker.authorization, body: { title: "alpha learner" } }), "start learner session");
  ok(await matrixCall(client, "POST", `/v1/build-sessions/${learner.body.session.id as string}/end`, { authorization: worker.authorization, body: { learnings: [names.learning] } }), "end learner session");
  const detected = ok(await matrixCall(client, "POST", "/v1/lesson-candidates/detect", { authorization: sender.authorization, body: {} }), "detect candidates");
  const candidateId = (detected.body.created as { id: string }[])[0]?.id;
  if (candidateId === undefined) throw new Error(`no candidate: ${detected.text}`);
  const imported = ok(await matrixCall(client, "POST", "/v1/session-state/imports/upload", { authorization: sender.authorization, body: { parser: "lessons-list", filename: "LESSONS.md", content: `## ${names.importedLesson}\nDo: keep it.\n` } }), "upload import");

  const connection = await target.connectOAuthClient(aAdmin.workspaceId, worker.id);
  const owner = await target.openPersonSession(aAdmin.workspaceId, names.ownerEmail, "owner");
  const viewer = await target.openPersonSession(aAdmin.workspaceId, names.viewerEmail, "viewer");

  const a = { admin: aAdmin, sender, worker, leasedMessageId, leaseId, deadLetterId, webhookId: webhook.body.webhook.id as string, policyId: policy.body.id as string, projectId: project.body.id as string, decisionId: decision.body.id as string, correctionId: correction.body.id as string, sessionId: session.body.session.id as string, backlogItemId: backlogItem.body.id as string, lessonId: lesson.body.id as string, ruleId: rule.body.id as string, candidateId, importId: imported.body.id as string, connectionId: connection.grantId, owner, viewerPersonId: viewer.personId };
  const tokens = [aAdmin.authorization, sender.authorization, worker.authorization].map((h) => h.slice("Bearer ".length));
  const secrets = [
    aAdmin.workspaceId, aAdmin.accountId, aAdmin.credentialId, sender.id, sender.credentialId, worker.id, worker.credentialId,
    leasedMessageId, leaseId, firstLease, deadLetterId, a.webhookId, a.policyId, a.projectId, a.decisionId, a.correctionId, a.sessionId, a.backlogItemId, a.lessonId, a.ruleId, a.candidateId, a.importId, a.connectionId, connection.accessToken, connection.refreshToken, owner.personId, viewer.personId, ...[owner, viewer].map((p) => p.headers.Cookie?.split("=")[1] ?? ""), ...Object.values(names), ...tokens,
  ];
  return { ...a, secrets };
}
