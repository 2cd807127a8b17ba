import type { Workspace } from "../access/model.ts";
import { DomainError } from "../errors.ts";
import { DAY_MS } from "../time/duration.ts";

/** How long a closed workspace keeps its payloads: the background jobs delete them after this (DESIGN §2b). */
export const PAYLOAD_RETENTION_AFTER_CLOSE_MS = 30 * DAY_MS;

/** When a workspace closed at `closedAt` loses its payloads. */
export function payloadDeletionAt(closedAt: Date): Date {
  return new Date(closedAt.getTime() + PAYLOAD_RETENTION_AFTER_CLOSE_MS);
}

/**
 * The refusal of anything but sign-in, GET /v1/me, export, erase and sign-out in a closed
 * workspace: 403 SVC_WORKSPACE_CLOSED whose message names the end date (details `closed_at`,
 * `payload_deletion_at`).
 */
export function workspaceClosedError(workspace: Pick<Workspace, "closedAt">): DomainError {
  const closedAt = workspace.closedAt ?? null;
  if (closedAt === null) return new DomainError("SVC_WORKSPACE_CLOSED", "This workspace is closed.");
  const end = payloadDeletionAt(closedAt).toISOString();
  return new DomainError(
    "SVC_WORKSPACE_CLOSED",
    `This workspace is closed. Until ${end}, only sign-in, GET /v1/me, GET /v1/me/export, DELETE /v1/me and sign-out work; then its message payloads are deleted.`,
    { closed_at: closedAt.toISOString(), payload_deletion_at: end },
  );
}
