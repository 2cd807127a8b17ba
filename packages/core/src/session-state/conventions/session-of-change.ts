import { DomainError } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { credentialCaller } from "../../access/principal.ts";

// History (SESSION-STATE §1): every change of a record names the build session it happened in.

/**
 * The build session a change belongs to: `buildSessionId` when given (a session of the same
 * project, else 404), else the caller's latest active session in the project, else none.
 */
export async function sessionOfChange(stores: Stores, ctx: OperationContext, projectId: string, buildSessionId: string | undefined | null): Promise<string | null> {
  const workspaceId = ctx.principal.workspace.id;
  if (buildSessionId !== undefined && buildSessionId !== null) {
    const s = isUlid(buildSessionId) ? await stores.buildSessions.find({ workspaceId, id: buildSessionId }) : null;
    if (s === null || s.projectId !== projectId) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "build_session_id names no build session of this project.", { resource: "Build session", field: "build_session_id" });
    return s.id;
  }
  return (await stores.buildSessions.activeFor({ workspaceId, projectId, aiAccountId: credentialCaller(ctx.principal).account.id }))?.id ?? null;
}
