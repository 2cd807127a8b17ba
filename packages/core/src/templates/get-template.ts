import type { CoreDeps } from "../deps.ts";
import { notFound } from "../errors.ts";
import type { OperationContext } from "../operation.ts";
import { findTemplate, templateJsonSchema } from "./built-in-templates.ts";

/**
 * GET /v1/templates/{name}: the template's JSON Schema.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND for an unknown name.
 */
export async function getTemplate(_deps: CoreDeps, _ctx: OperationContext, input: { name: string }): Promise<{ name: string; description: string; schema: Record<string, unknown> }> {
  const t = findTemplate(input.name);
  if (!t) throw notFound("Template");
  return { name: t.name, description: t.description, schema: templateJsonSchema(t) };
}
