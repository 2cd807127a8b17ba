import { bootstrapScenarioWorkspace, createInMemoryDeps } from "@agentq/core/testing";
import type { AccessScenarioWorkspace, InMemoryWorld } from "@agentq/core/testing";
import type { Hono } from "hono";
import { createRestApp } from "../app.ts";
import type { RestEnv } from "../rest-env.ts";
import { call } from "./call.ts";
import { recordingLogger } from "./test-app.ts";

/** Every operational scope the messaging routes gate on. */
export const MESSAGING_SCOPES = ["send", "validate", "get_pending", "ack", "nack", "list_recipients", "list_templates", "get_template"] as const;

/** An AI account created through the API, with a credential issued through the API. */
export interface RestAgent {
  id: string;
  name: string;
  credentialId: string;
  authorization: string;
}

/** The REST app over a fresh in-memory world. */
export function createInMemoryRestApp(): { world: InMemoryWorld; app: Hono<RestEnv>; logger: ReturnType<typeof recordingLogger> } {
  const world = createInMemoryDeps();
  const logger = recordingLogger();
  return { world, app: createRestApp(world.deps, { logger }), logger };
}

/** Bootstraps a workspace (its admin credential) in the app's world. */
export function bootstrap(world: InMemoryWorld, name: string): Promise<AccessScenarioWorkspace> {
  return bootstrapScenarioWorkspace(world, name);
}

/** Creates an AI account and issues it an operational credential with `scopes`, through the API as the workspace's admin. */
export async function createAgent(app: Hono<RestEnv>, admin: AccessScenarioWorkspace, name: string, scopes: readonly string[] = MESSAGING_SCOPES): Promise<RestAgent> {
  const account = await call(app, "POST", "/v1/ai-accounts", { authorization: admin.authorization, body: { friendly_name: name } });
  if (account.status !== 201) throw new Error(`create account ${name}: ${account.text}`);
  const cred = await call(app, "POST", "/v1/credentials", { authorization: admin.authorization, body: { ai_account_id: account.body.id, tier: "operational", scopes, name: `${name}-cred` } });
  if (cred.status !== 201) throw new Error(`issue credential for ${name}: ${cred.text}`);
  return { id: account.body.id, name, credentialId: cred.body.credential.id, authorization: `Bearer ${cred.body.token as string}` };
}

/** A valid send body (template directive) to `recipient`. */
export function directiveTo(recipient: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { envelope: { recipient: { friendly_name: recipient }, template: "directive", ...extra }, payload: { directive_kind: "task", summary: "Do it", instructions: "All of it." } };
}
