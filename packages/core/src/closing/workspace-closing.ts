import type { PersonPrincipal, Principal, Workspace } from "../access/model.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { Stores } from "../ports.ts";
import { personAuditEntry } from "../people/people-audit.ts";
import { requireStepUp } from "../people/step-up.ts";
import { payloadDeletionAt, PAYLOAD_RETENTION_AFTER_CLOSE_MS, workspaceClosedError } from "./closed-refusal.ts";

/** The wire form of a workspace's closing. */
export interface ClosedWorkspaceView {
  workspace: { id: string; state: "closed"; closed_at: string };
  payload_deletion_at: string;
}

/** The audit rows of AI accounts and credentials revoked together, for `reason`. */
function revocationRows(deps: Pick<CoreDeps, "ids">, actor: PersonPrincipal, now: Date, requestId: string | null, ids: { accountIds: string[]; credentialIds: string[] }, reason: string): NewAuditEntry[] {
  const row = (activity: string, subjectType: string, subjectId: string): NewAuditEntry => ({
    ...personAuditEntry(deps, { workspaceId: actor.workspace.id, occurredAt: now, activity, subjectId, actorPersonId: actor.person.id, requestId, details: { reason } }),
    subjectType,
  });
  return [...ids.accountIds.map((id) => row("ai_account.revoked", "ai_account", id)), ...ids.credentialIds.map((id) => row("credential.revoked", "credential", id))];
}

async function appendAll(stores: Stores, entries: readonly NewAuditEntry[]): Promise<void> {
  for (const entry of entries) await stores.audit.append({ entry });
}

/**
 * DELETE /v1/workspaces/me (DESIGN §2b): an owner's session with a fresh step-up closes the
 * workspace. In one transaction: state closed with its closing time, every AI account and every
 * credential revoked at once (one `ai_account.revoked` / `credential.revoked` row each, reason
 * `workspace_closed`) and `workspace.closed`. The credentials are forgotten by this process's
 * cache after the commit. Payloads go 30 days later (`deleteClosedWorkspacePayloads`). Not
 * reversible.
 * @throws DomainError SVC_TIER_INSUFFICIENT (a credential, or not an owner),
 *   SVC_STEP_UP_REQUIRED, SVC_WORKSPACE_CLOSED (closed already).
 */
export async function closeWorkspace(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "credentialCache">, principal: Principal, ctx: { requestId: string | null }): Promise<ClosedWorkspaceView> {
  const actor = requireStepUp(principal, deps.clock.now());
  if (actor.person.role !== "owner") throw new DomainError("SVC_TIER_INSUFFICIENT", "Only an owner may close the workspace.", { role: actor.person.role });
  if (actor.workspace.state === "closed") throw workspaceClosedError(actor.workspace);
  const done = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const closed = await stores.workspaceLifecycle.close({ workspaceId: actor.workspace.id, now });
    if (closed.kind === "already_closed") throw workspaceClosedError(closed.workspace);
    if (closed.kind === "not_found") throw new DomainError("SVC_RESOURCE_NOT_FOUND", "Workspace not found.", { resource: "workspace" });
    const closedAt = closed.workspace.closedAt ?? now;
    await appendAll(stores, revocationRows(deps, actor, now, ctx.requestId, closed, "workspace_closed"));
    await stores.audit.append({
      entry: {
        ...personAuditEntry(deps, {
          workspaceId: actor.workspace.id,
          occurredAt: now,
          activity: "workspace.closed",
          subjectId: actor.workspace.id,
          actorPersonId: actor.person.id,
          requestId: ctx.requestId,
          details: { closed_at: closedAt.toISOString(), payload_deletion_at: payloadDeletionAt(closedAt).toISOString(), ai_accounts_revoked: closed.accountIds.length, credentials_revoked: closed.credentialIds.length },
        }),
        subjectType: "workspace",
      },
    });
    return { closedAt, credentialIds: closed.credentialIds };
  });
  for (const id of done.credentialIds) deps.credentialCache?.forget(id);
  return { workspace: { id: actor.workspace.id, state: "closed", closed_at: done.closedAt.toISOString() }, payload_deletion_at: payloadDeletionAt(done.closedAt).toISOString() };
}

/** What DELETE /v1/me answers. */
export interface ErasedView {
  erased: { person_id: string; erased_at: string };
  workspace: { id: string; state: Workspace["state"] };
}

/**
 * DELETE /v1/me (DESIGN §2b): a person's session with a fresh step-up erases the person: their
 * record (email, name, password hash, MFA secrets), sessions, recovery codes and links are
 * deleted. When they were the workspace's last owner, the workspace is frozen (a closed one
 * stays closed) and every AI account and credential revoked (reason `owner_erased`); the
 * workspace record and its audit chain stay. One transaction, audited as `person.erased`
 * (by id only). Works in a closed workspace.
 * @throws DomainError SVC_TIER_INSUFFICIENT (a credential), SVC_STEP_UP_REQUIRED.
 */
export async function erasePerson(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "credentialCache">, principal: Principal, ctx: { requestId: string | null }): Promise<ErasedView> {
  const actor = requireStepUp(principal, deps.clock.now());
  const done = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const erased = await stores.workspacePeople.erase({ workspaceId: actor.workspace.id, personId: actor.person.id });
    if (erased.kind === "not_found") throw new DomainError("SVC_UNAUTHENTICATED", "The request does not carry a valid session.");
    let state = actor.workspace.state;
    let revoked = { accountIds: [] as string[], credentialIds: [] as string[] };
    if (erased.wasLastOwner) {
      const frozen = await stores.workspaceLifecycle.freezeAndRevoke({ workspaceId: actor.workspace.id, now });
      if (frozen !== null) {
        state = frozen.workspace.state;
        revoked = frozen;
      }
      await appendAll(stores, revocationRows(deps, actor, now, ctx.requestId, revoked, "owner_erased"));
    }
    await stores.audit.append({
      entry: personAuditEntry(deps, {
        workspaceId: actor.workspace.id,
        occurredAt: now,
        activity: "person.erased",
        subjectId: actor.person.id,
        actorPersonId: actor.person.id,
        requestId: ctx.requestId,
        details: { role: erased.person.role, was_last_owner: erased.wasLastOwner, workspace_state: state, ai_accounts_revoked: revoked.accountIds.length, credentials_revoked: revoked.credentialIds.length },
      }),
    });
    return { now, state, credentialIds: revoked.credentialIds };
  });
  for (const id of done.credentialIds) deps.credentialCache?.forget(id);
  return { erased: { person_id: actor.person.id, erased_at: done.now.toISOString() }, workspace: { id: actor.workspace.id, state: done.state } };
}

/**
 * The background job of closed workspaces (DESIGN §2b): deletes the message payloads of every
 * workspace closed at least 30 days ago, in batches of `batch`, with one `workspace.payloads_deleted`
 * audit row when a workspace's last payload is gone. Returns how many payloads it deleted.
 */
export async function deleteClosedWorkspacePayloads(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids">, opts: { maxWorkspaces?: number; batch?: number } = {}): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.stores.workspaceLifecycle.dueForPayloadDeletion({ closedBefore: new Date(now.getTime() - PAYLOAD_RETENTION_AFTER_CLOSE_MS), limit: opts.maxWorkspaces ?? 10 });
  let total = 0;
  for (const workspaceId of due) {
    for (;;) {
      const step = await deps.tx.run(async (stores) => {
        const r = await stores.workspaceLifecycle.deletePayloads({ workspaceId, now: deps.clock.now(), limit: opts.batch ?? 1000 });
        if (r.done) {
          await stores.audit.append({
            entry: { ...personAuditEntry(deps, { workspaceId, occurredAt: deps.clock.now(), activity: "workspace.payloads_deleted", subjectId: workspaceId, actorPersonId: null, requestId: null, details: {} }), subjectType: "workspace" },
          });
        }
        return r;
      });
      total += step.deleted;
      if (step.done) break;
    }
  }
  return total;
}
