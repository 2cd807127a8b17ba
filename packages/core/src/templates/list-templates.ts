import type { CoreDeps } from "../deps.ts";
import { decodeCursor, encodeCursor } from "../cursors/cursor.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import type { OperationContext } from "../operation.ts";
import { BUILT_IN_TEMPLATES } from "./built-in-templates.ts";

/** A template in the list. */
export interface TemplateListItem {
  name: string;
  description: string;
}

/**
 * GET /v1/templates: the templates, by name, paged like every list.
 * @throws DomainError SVC_MALFORMED_REQUEST (limit not an integer), SVC_CURSOR_EXPIRED.
 */
export async function listTemplates(deps: CoreDeps, ctx: OperationContext, input: { limit?: unknown; cursor?: string | null }): Promise<{ items: TemplateListItem[]; next_cursor: string | null }> {
  const limit = parsePageLimit(input.limit);
  const scope = { resource: "templates", workspaceId: ctx.principal.workspace.id, filters: {} };
  const after = decodeCursor(deps, scope, input.cursor);
  const rows = [...BUILT_IN_TEMPLATES].sort((a, b) => (a.name < b.name ? -1 : 1)).filter((t) => after === null || t.name > after);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((t) => ({ name: t.name, description: t.description })),
    next_cursor: rows.length > limit && last ? encodeCursor(deps, scope, last.name) : null,
  };
}
