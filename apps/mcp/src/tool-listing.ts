import { authorize, defaultToolsets, parseToolsets, toolsetOf } from "@agentq/core";
import type { Operation, Principal, Toolset } from "@agentq/core";
import type { ToolCaller } from "./call-tool.ts";
import type { ToolBinding } from "./tool-binding.ts";

/** The query parameter of the MCP URL that names toolsets (`?toolsets=messaging,session_state`). */
export const TOOLSETS_QUERY_PARAMETER = "toolsets";
/** The request header that names toolsets, like the query parameter. */
export const TOOLSETS_HEADER = "X-MCP-Toolsets";

/**
 * The toolsets a request names: those of the URL's `toolsets` parameter and of the
 * `X-MCP-Toolsets` header; when both name some, those both name (each narrows). Null when
 * neither names any (the caller's default applies).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field `toolsets` or `X-MCP-Toolsets`,
 *   `unknown`, `known`) for a name that is not a toolset.
 */
export function requestedToolsets(query: readonly string[], header: string | null): Toolset[] | null {
  const fromQuery = parseToolsets(query, TOOLSETS_QUERY_PARAMETER);
  const fromHeader = header === null ? null : parseToolsets([header], TOOLSETS_HEADER);
  if (fromQuery === null) return fromHeader;
  if (fromHeader === null) return fromQuery;
  return fromQuery.filter((t) => fromHeader.includes(t));
}

/** Whether the principal may call the operation (tier and scope, as the executor checks them). */
function mayCall(principal: Principal, op: Operation): boolean {
  try {
    authorize(principal, op.auth, op.mutates);
    return true;
  } catch {
    return false;
  }
}

/**
 * The tools `tools/list` shows a caller (DESIGN §2c): those of the named toolsets (else of the
 * caller's default toolsets, `defaultToolsets`) that its tier and scopes let it call. A caller
 * refused at authentication (a frozen account, a closed workspace), whose credential is not
 * known here, is shown the operational-tier tools of the named toolsets (default: messaging),
 * so that its agent calls one and reads the refusal (SVC_FROZEN, SVC_WORKSPACE_CLOSED) rather
 * than finding no tools. Listing only: a tool not shown is still called by name, and refused with
 * the code the executor gives (SVC_TIER_INSUFFICIENT, SVC_SCOPE_INSUFFICIENT).
 */
export function toolsShownTo(bindings: readonly ToolBinding[], caller: ToolCaller, requested: readonly Toolset[] | null): ToolBinding[] {
  if (caller.kind === "refused") {
    const toolsets = new Set<Toolset>(requested ?? ["messaging"]);
    return bindings.filter((b) => toolsets.has(toolsetOf(b.operation)) && b.operation.auth.kind === "credential" && b.operation.auth.tier === "operational");
  }
  const toolsets = new Set(requested ?? defaultToolsets(caller.principal));
  return bindings.filter((b) => toolsets.has(toolsetOf(b.operation)) && mayCall(caller.principal, b.operation));
}
