import type { CoreDeps } from "../deps.ts";
import { keysetPage } from "../cursors/paged-list.ts";
import { notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import type { OperationContext } from "../operation.ts";

/** The body of GET /v1/policies/{policy_id}/acknowledgements. */
export interface PolicyAcknowledgementsView {
  policy: { id: string; name: string; version: number; required: boolean };
  items: { ai_account_id: string; friendly_name: string; version: number; current: boolean; acknowledged_at: string }[];
  next_cursor: string | null;
}

/**
 * Who acknowledged a policy of the caller's workspace: each AI account's last acknowledged
 * version (whether it is the current one) and when, by account id, paged with a signed cursor.
 * A policy of another workspace does not exist.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function listPolicyAcknowledgements(deps: CoreDeps, ctx: OperationContext, input: { policy_id: string; limit?: unknown; cursor?: string | null }): Promise<PolicyAcknowledgementsView> {
  const workspaceId = ctx.principal.workspace.id;
  const policy = isUlid(input.policy_id) ? await deps.stores.policies.findCurrent({ workspaceId, policyId: input.policy_id }) : null;
  if (policy === null) throw notFound("Policy");
  const page = await keysetPage(
    deps,
    ctx,
    { resource: "policy_acknowledgements", filters: { policy: policy.id }, limit: input.limit, cursor: input.cursor },
    (after, limit) => deps.stores.policies.listAcknowledgements({ workspaceId, policyId: policy.id, after, limit }),
    (r) => r,
    (r) => r.accountId,
  );
  const accounts = await Promise.all(page.items.map((r) => deps.stores.accounts.findById({ workspaceId, accountId: r.accountId })));
  return {
    policy: { id: policy.id, name: policy.name, version: policy.version, required: policy.required },
    items: page.items.map((r, i) => ({ ai_account_id: r.accountId, friendly_name: accounts[i]?.friendlyName ?? "", version: r.version, current: r.version === policy.version, acknowledged_at: r.acknowledgedAt.toISOString() })),
    next_cursor: page.next_cursor,
  };
}
