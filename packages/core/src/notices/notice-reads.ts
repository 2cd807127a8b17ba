import type { Principal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { decodeCursor, encodeCursor } from "../cursors/cursor.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import { notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import type { Notice } from "./notice.ts";
import { noticeTokenMatches } from "./notice-token.ts";
import { noticeNotifierView, noticePublicView, noticeWorkspaceView } from "./notice-views.ts";

/**
 * Finds a notice for a caller holding its status token. An unknown id, a malformed id and a
 * wrong token all give the same 404, so neither ids nor tokens can be probed.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function findNoticeWithToken(deps: Pick<CoreDeps, "stores" | "secrets">, noticeId: string, token: string): Promise<Notice> {
  const notice = isUlid(noticeId) ? await deps.stores.notices.find({ noticeId }) : null;
  if (notice === null || !noticeTokenMatches(deps.secrets.pepper, notice.statusTokenHash, token)) throw notFound("Notice");
  return notice;
}

/** True when the principal may see the notice as its affected workspace (an administrative credential or a person's session of it; disclosed). */
function isAffectedWorkspace(notice: Notice, principal: Principal | undefined): principal is Principal {
  if (principal === undefined) return false;
  const administrative = principal.kind === "person" || principal.credential.tier === "administrative";
  return administrative && notice.disclosedAt !== null && notice.affectedWorkspaceId === principal.workspace.id;
}

/**
 * GET /v1/notices/{id}: with the Notice-Token header the notifier's view; for the affected
 * workspace (an administrative credential of it) once disclosed, its view; for anyone else the
 * public view (state and dates).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (unknown or malformed id, wrong token: the same answer).
 */
export async function getNotice(deps: Pick<CoreDeps, "stores" | "secrets">, p: { noticeId: string; token: string | null; principal: Principal | undefined }): Promise<Record<string, unknown>> {
  if (p.token !== null) return noticeNotifierView(await findNoticeWithToken(deps, p.noticeId, p.token));
  const notice = isUlid(p.noticeId) ? await deps.stores.notices.find({ noticeId: p.noticeId }) : null;
  if (notice === null) throw notFound("Notice");
  if (isAffectedWorkspace(notice, p.principal)) return noticeWorkspaceView(notice, p.principal.workspace.id);
  return { ...noticePublicView(notice) };
}

/**
 * GET /v1/notices: the notices disclosed to the caller's workspace, newest first, in the
 * workspace's view, paged with a signed cursor bound to the workspace.
 * @throws DomainError SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function listWorkspaceNotices(deps: CoreDeps, p: { workspaceId: string; limit: unknown; cursor: string | null | undefined }): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null }> {
  const limit = parsePageLimit(p.limit);
  const scope = { resource: "notices", workspaceId: p.workspaceId, filters: {} };
  const after = decodeCursor(deps, scope, p.cursor);
  const rows = await deps.stores.notices.listDisclosed({ workspaceId: p.workspaceId, after, limit });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return { items: page.map((n) => noticeWorkspaceView(n, p.workspaceId)), next_cursor: rows.length > limit && last ? encodeCursor(deps, scope, last.id) : null };
}
