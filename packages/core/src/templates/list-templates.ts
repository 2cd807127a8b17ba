import type { CoreDeps } from "../deps.ts";
import { keysetPage } from "../cursors/paged-list.ts";
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
  const sorted = [...BUILT_IN_TEMPLATES].sort((a, b) => (a.name < b.name ? -1 : 1));
  return keysetPage(
    deps,
    ctx,
    { resource: "templates", filters: {}, limit: input.limit, cursor: input.cursor },
    async (after) => sorted.filter((t) => after === null || t.name > after),
    (t) => ({ name: t.name, description: t.description }),
    (t) => t.name,
  );
}
