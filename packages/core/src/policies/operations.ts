import { Type } from "@sinclair/typebox";
import { decodeCursor, encodeCursor } from "../cursors/cursor.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import { runIdempotent } from "../idempotency/run-idempotent.ts";
import { defineWriteOperation } from "../idempotency/define-write-operation.ts";
import { acknowledgePolicy, auditAcknowledgeRefusal, policyListView, policyView, publishPolicy } from "./workspace-policies.ts";
import { listPolicyAcknowledgements } from "./policy-acknowledgements.ts";
import { defineOperation } from "../operation.ts";
import { callerKey } from "../access/principal.ts";

const NullableNames = Type.Union([Type.Array(Type.String()), Type.Null()]);
const HoldNames = (what: string) => Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: 50, description: `Approval: hold sends ${what}.` }));

const PolicyFields = {
  id: Type.String({ description: "ULID of the policy (the same for all its versions)." }),
  name: Type.String({ description: "The policy's name, unique in the workspace." }),
  version: Type.Integer({ description: "The current version (1, 2, ...)." }),
  required: Type.Boolean({ description: "Whether AI accounts must acknowledge this version before they send (409 SVC_POLICY_NOT_ACKNOWLEDGED otherwise)." }),
  kind: Type.Union([Type.Literal("acknowledgement"), Type.Literal("approval")], { description: "acknowledgement, or approval: matching sends wait for a person's approval." }),
  holds: Type.Optional(
    Type.Object(
      {
        templates: NullableNames,
        recipients: NullableNames,
        senders: NullableNames,
        priorities: NullableNames,
        require_step_up: Type.Boolean({ description: "A person's session must step up to decide." }),
      },
      { description: "What an approval policy holds (null: any)." },
    ),
  ),
  body: Type.String({ description: "The policy text." }),
  published_at: Type.String({ format: "date-time", description: "When this version was published." }),
};
const PolicySchema = Type.Object(PolicyFields, { description: "A version of a workspace policy." });
const PolicyListItemSchema = Type.Object(
  {
    ...PolicyFields,
    acknowledged_version: Type.Union([Type.Integer(), Type.Null()], { description: "The version you last acknowledged, or null." }),
    acknowledged_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "When you acknowledged it, or null." }),
    acknowledged: Type.Boolean({ description: "True when you acknowledged the current version." }),
  },
  { description: "A workspace policy's current version and your acknowledgement of it." },
);

const publishPolicyOp = defineWriteOperation({
  name: "publish_policy",
  summary: "Publish a new version of a named workspace policy (version 1 for a new name): required ones AI accounts acknowledge before they send; kind approval holds matching sends for a person's approval.",
  http: { method: "POST", path: "/v1/policies" },
  // manage_policies is retired (gates nothing): any administrative credential publishes.
  auth: { kind: "credential", tier: "administrative", scope: null },
  idempotency: "required",
  input: Type.Object({
    name: Type.String({ minLength: 1, maxLength: 63, description: "The policy's name: 1-63 characters of a-z, 0-9, '.', '_' or '-'. Publishing an existing name adds a version." }),
    body: Type.String({ minLength: 1, maxLength: 65_536, description: "The policy text." }),
    required: Type.Optional(Type.Boolean({ description: "Whether sends need an acknowledgement of this version (default false)." })),
    kind: Type.Optional(Type.Union([Type.Literal("acknowledgement"), Type.Literal("approval")], { description: "Default acknowledgement; approval holds the sends it names until a person approves them." })),
    templates: HoldNames("of these templates"),
    recipients: HoldNames("to these friendly names"),
    senders: HoldNames("from these friendly names"),
    priorities: HoldNames("of these priorities"),
    require_step_up: Type.Optional(Type.Boolean({ description: "Approval: a person's session must step up (MFA) to approve or reject." })),
  }),
  output: PolicySchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: policyView(await publishPolicy(deps, stores, ctx, input)) }),
});

const getPolicies = defineOperation({
  name: "get_policies",
  summary: "Read your workspace's policies (current version of each, by name) and whether you acknowledged each; required ones must be acknowledged before you send.",
  http: { method: "GET", path: "/v1/policies", query: ["limit", "cursor"] },
  auth: { kind: "credential", tier: "operational", scope: "get_policies", scopeWaivedForTier: "administrative" },
  idempotency: "none",
  mutates: false,
  input: Type.Object({
    limit: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100." })),
    cursor: Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page." })),
  }),
  output: Type.Object({ items: Type.Array(PolicyListItemSchema), next_cursor: Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page; null on the last page." }) }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const limit = parsePageLimit(input.limit);
    const workspaceId = ctx.principal.workspace.id;
    const scope = { resource: "policies", workspaceId, filters: { account: callerKey(ctx.principal) } };
    const after = decodeCursor(deps, scope, input.cursor);
    const rows = await deps.stores.policies.listCurrent({ workspaceId, accountId: callerKey(ctx.principal), after, limit });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { status: 200, body: { items: page.map(policyListView), next_cursor: rows.length > limit && last !== undefined ? encodeCursor(deps, scope, last.policy.name) : null } };
  },
});

const acknowledgePolicies = defineOperation({
  name: "acknowledge_policies",
  summary: "Acknowledge the current version of a workspace policy (name the version you read with get_policies; a superseded version gives 409 SVC_POLICY_VERSION_STALE).",
  http: { method: "POST", path: "/v1/policies/{policy_id}/acknowledge" },
  auth: { kind: "credential", tier: "operational", scope: "acknowledge_policies" },
  idempotency: "required",
  mutates: true,
  input: Type.Object({
    policy_id: Type.String({ minLength: 1, maxLength: 64, description: "ULID of the policy." }),
    version: Type.Integer({ minimum: 1, description: "The version you acknowledge: the current one." }),
  }),
  output: Type.Object({
    policy_id: Type.String(),
    name: Type.String(),
    version: Type.Integer({ description: "The acknowledged version." }),
    acknowledged_at: Type.String({ format: "date-time" }),
  }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    try {
      return await runIdempotent(deps, ctx, async (stores) => {
        const { policy, acknowledgedAt } = await acknowledgePolicy(deps, stores, ctx, { policyId: input.policy_id, version: input.version });
        return { status: 200, body: { policy_id: policy.id, name: policy.name, version: policy.version, acknowledged_at: acknowledgedAt.toISOString() } };
      });
    } catch (e) {
      await auditAcknowledgeRefusal(deps, ctx, input.policy_id, e);
      throw e;
    }
  },
});

/** The policy operations: publish (administrative), read and acknowledge (operational). */
const listPolicyAcknowledgementsOp = defineOperation({
  name: "list_policy_acknowledgements",
  summary: "Who acknowledged a workspace policy: each AI account's last acknowledged version, whether it is the current one, and when. Administrative.",
  http: { method: "GET", path: "/v1/policies/{policy_id}/acknowledgements", query: ["limit", "cursor"] },
  auth: { kind: "credential", tier: "administrative", scope: null },
  idempotency: "none",
  mutates: false,
  input: Type.Object({
    policy_id: Type.String({ minLength: 1, maxLength: 64, description: "ULID of the policy." }),
    limit: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100." })),
    cursor: Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page." })),
  }),
  output: Type.Object({
    policy: Type.Object({ id: Type.String(), name: Type.String(), version: Type.Integer({ description: "The current version." }), required: Type.Boolean() }, { description: "The policy's current version." }),
    items: Type.Array(
      Type.Object({
        ai_account_id: Type.String({ description: "ULID of the AI account." }),
        friendly_name: Type.String({ description: "Its current name." }),
        version: Type.Integer({ description: "The version it last acknowledged." }),
        current: Type.Boolean({ description: "True when that is the current version." }),
        acknowledged_at: Type.String({ format: "date-time", description: "When it acknowledged that version." }),
      }),
      { description: "Accounts that acknowledged some version, by account id." },
    ),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page; null on the last page." }),
  }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await listPolicyAcknowledgements(deps, ctx, input) }),
});

export const POLICY_OPERATIONS = [publishPolicyOp, getPolicies, acknowledgePolicies, listPolicyAcknowledgementsOp];
