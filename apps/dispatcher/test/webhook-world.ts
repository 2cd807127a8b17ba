import { bootstrapWorkspace, createAuthenticator, executeOperation, findOperation, requestFingerprint, type CoreDeps, type Principal, type WebhookTransport } from "@agentq/core";
import { createPgDeps, type PgDeps } from "@agentq/postgres";
import type postgres from "postgres";
import { deriveSecrets } from "@agentq/runtime";

/** The master secret of the tests (the spawned dispatcher gets it as SVC_SECRET_KEY). */
export const TEST_MASTER_SECRET = "agentq-dispatcher-test-master-secret-0123456789";

let counter = 0;

/** A workspace on PostgreSQL with an admin, a recipient (`worker-…`) and a sender holding `send`. */
export interface WebhookWorld {
  deps: PgDeps;
  admin: Principal;
  sender: Principal;
  recipientId: string;
  recipientName: string;
  workspaceId: string;
  /** Runs a catalogue operation as an edge would (fresh Idempotency-Key on writes unless given). */
  call<T = Record<string, unknown>>(principal: Principal, name: string, input?: Record<string, unknown>, key?: string | null): Promise<{ status: number; body: T }>;
  /** Sends a note to the recipient; returns the message id. */
  send(p?: { correlationId?: string; template?: "note" | "directive"; priority?: string }): Promise<string>;
}

/** Builds a WebhookWorld on `sql` whose webhook probes go through `transport`. */
export async function createWebhookWorld(sql: postgres.Sql, transport: WebhookTransport): Promise<WebhookWorld> {
  const deps = createPgDeps({ sql, secrets: deriveSecrets(TEST_MASTER_SECRET) });
  (deps as CoreDeps).webhookTransport = transport;
  const auth = createAuthenticator(deps);
  const n = ++counter;
  const boot = await bootstrapWorkspace(deps, { workspaceName: `hooks-${n}`, email: `hooks-${n}-${deps.ids.next().toLowerCase()}@example.test` });
  const admin = await auth.authenticate(`Bearer ${boot.token}`);
  const call = async <T>(principal: Principal, name: string, input: Record<string, unknown> = {}, key?: string | null) => {
    const op = findOperation(name);
    if (!op) throw new Error(name);
    const path = op.http.path.replace(/\{(\w+)\}/g, (_m, p: string) => String(input[p]));
    const body = op.http.method === "GET" ? null : Object.fromEntries(Object.entries(input).filter(([k]) => !op.http.path.includes(`{${k}}`)));
    const idempotencyKey = key === undefined ? (op.mutates ? `k-${deps.ids.next()}` : null) : key;
    const ctx = { principal, requestId: `req-${deps.ids.next()}`, idempotencyKey, fingerprint: requestFingerprint({ method: op.http.method, path, body }) };
    return (await executeOperation(deps, op, ctx, input)) as { status: number; body: T };
  };
  const recipientName = `worker-${n}`;
  const recipient = await call<{ id: string }>(admin, "create_ai_account", { friendly_name: recipientName });
  const senderAccount = await call<{ id: string }>(admin, "create_ai_account", { friendly_name: `sender-${n}` });
  const issued = await call<{ token: string }>(admin, "issue_credential", { ai_account_id: senderAccount.body.id, tier: "operational", scopes: ["send"], name: "test sender" });
  const sender = await auth.authenticate(`Bearer ${issued.body.token}`);
  return {
    deps,
    admin,
    sender,
    recipientId: recipient.body.id,
    recipientName,
    workspaceId: boot.workspace_id,
    call,
    async send(p = {}) {
      const template = p.template ?? "note";
      const payload = template === "note" ? { text: "hello" } : { directive_kind: "task", summary: "s", instructions: "i" };
      const envelope = { recipient: { friendly_name: recipientName }, template, ...(p.priority ? { priority: p.priority } : {}), ...(p.correlationId ? { correlation_id: p.correlationId } : {}) };
      const res = await call<{ message_id: string }>(sender, "send", { envelope, payload });
      return res.body.message_id;
    },
  };
}
