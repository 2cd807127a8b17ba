import { DomainError, executeOperation, findOperation, requestFingerprint, type CoreDeps, type OperationContext } from "@agentq/core";
import type { Context } from "hono";
import type { DashboardEnv } from "./dashboard-env.ts";

/** One operation call of a page: the catalogue name, the input as REST would assemble it, the form's Idempotency-Key. */
export interface OperationCall {
  name: string;
  input: Record<string, unknown>;
  /** The key the form carried; an operation that requires one gets a fresh key when none came. */
  idempotencyKey?: string | null | undefined;
}

/**
 * Runs a catalogue operation for the signed-in person through the same executor as REST and MCP
 * (rate limit, authorization by tier and scope, Idempotency-Key, input validation, the
 * handler), so codes, audit rows and rules are the same whichever edge acted.
 * @returns the operation's response body (the REST response's JSON).
 * @throws DomainError whatever the executor refuses with; SVC_UNAUTHENTICATED without a session.
 */
export async function runOperation(deps: CoreDeps, c: Context<DashboardEnv>, call: OperationCall): Promise<unknown> {
  const op = findOperation(call.name);
  if (op === undefined) throw new Error(`No operation named ${call.name}.`);
  const principal = c.get("principal");
  if (principal === undefined) throw new DomainError("SVC_UNAUTHENTICATED", "Sign in to continue.");
  const path = op.http.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = call.input[name];
    return encodeURIComponent(typeof value === "string" ? value : "");
  });
  const pathParams = new Set([...op.http.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]));
  const body = Object.fromEntries(Object.entries(call.input).filter(([name]) => !pathParams.has(name)));
  const honoursKey = op.idempotency !== "none";
  const given = call.idempotencyKey === undefined || call.idempotencyKey === "" ? null : call.idempotencyKey;
  const ctx: OperationContext = {
    principal,
    requestId: c.get("requestId"),
    idempotencyKey: !honoursKey ? null : (given ?? (op.idempotency === "required" ? deps.ids.next() : null)),
    fingerprint: honoursKey ? requestFingerprint({ method: op.http.method, path, body: op.http.method === "GET" ? null : body }) : "",
  };
  const result = await executeOperation(deps, op, ctx, call.input);
  return result.body;
}
