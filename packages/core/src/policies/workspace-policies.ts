import type { CoreDeps } from "../deps.ts";
import { DomainError, isDomainError, malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import type { OperationContext } from "../operation.ts";
import type { Stores } from "../ports.ts";
import { auditRefusal } from "../audit/refusal-audit.ts";
import { POLICY_LIMITS, type Policy, type PolicyListItem } from "./policy.ts";
import { POLICY_KINDS, namesApprovalFields, parseApprovalHolds, type ApprovalHolds, type ApprovalHoldsInput, type PolicyKind } from "./approval-holds.ts";
import { auditEntry } from "../audit/audit-entry.ts";
import { credentialCaller } from "../access/principal.ts";

/** A policy version on the wire. */
export interface PolicyView {
  id: string;
  name: string;
  version: number;
  required: boolean;
  kind: PolicyKind;
  /** What an approval policy holds (null dimensions: any); absent on an acknowledgement policy. */
  holds?: { templates: string[] | null; recipients: string[] | null; senders: string[] | null; priorities: string[] | null; require_step_up: boolean };
  body: string;
  published_at: string;
}

/** A policy as the caller sees it, with its acknowledgement state. */
export interface PolicyListView extends PolicyView {
  acknowledged_version: number | null;
  acknowledged_at: string | null;
  /** True when the caller acknowledged the current version. */
  acknowledged: boolean;
}

/** The wire form of a policy version. */
export function policyView(p: Policy): PolicyView {
  const h = p.holds;
  return {
    id: p.id,
    name: p.name,
    version: p.version,
    required: p.required,
    kind: p.kind,
    ...(h === null ? {} : { holds: { templates: h.templates, recipients: h.recipients, senders: h.senders, priorities: h.priorities, require_step_up: h.requireStepUp } }),
    body: p.body,
    published_at: p.publishedAt.toISOString(),
  };
}

/** The wire form of a policy in a caller's list. */
export function policyListView(item: PolicyListItem): PolicyListView {
  return {
    ...policyView(item.policy),
    acknowledged_version: item.acknowledgedVersion,
    acknowledged_at: item.acknowledgedAt?.toISOString() ?? null,
    acknowledged: item.acknowledgedVersion === item.policy.version,
  };
}

function policyAudit(deps: Pick<CoreDeps, "ids">, ctx: OperationContext, p: { activity: string; policy: Policy; occurredAt: Date; details: Record<string, unknown> }) {
  return auditEntry(deps, ctx.principal, { workspaceId: ctx.principal.workspace.id, occurredAt: p.occurredAt, activity: p.activity, subjectType: "policy", subjectId: p.policy.id, details: p.details, requestId: ctx.requestId });
}

/** The body of a publish: an acknowledgement policy, or (DESIGN §2c) an approval policy with what it holds. */
export interface PublishPolicyInput extends ApprovalHoldsInput {
  name: string;
  body: string;
  required?: boolean;
  kind?: string;
}

/**
 * Publishes a new version of a workspace policy (version 1 for a new name), with its audit row
 * `policy.published`, in the caller's transaction. From then on, when `required`, sends of AI
 * accounts that have not acknowledged this version are refused. A policy of kind `approval`
 * (never required: agents do not acknowledge it) holds the sends its dimensions match for a
 * person's approval; a later version decides again (of either kind).
 * @throws DomainError SVC_MALFORMED_REQUEST (name pattern, body empty or too long, kind, the
 *   approval dimensions, required or a dimension on the wrong kind).
 */
export async function publishPolicy(deps: Pick<CoreDeps, "ids" | "clock">, stores: Stores, ctx: OperationContext, input: PublishPolicyInput): Promise<Policy> {
  if (!POLICY_LIMITS.namePattern.test(input.name)) throw malformed("name must be 1 to 63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit.", { field: "name" });
  if (input.body.trim() === "" || input.body.length > POLICY_LIMITS.bodyMaxLength) throw malformed(`body must be 1 to ${POLICY_LIMITS.bodyMaxLength} characters.`, { field: "body" });
  const kind = input.kind ?? "acknowledgement";
  if (!(POLICY_KINDS as readonly string[]).includes(kind)) throw malformed(`kind must be one of ${POLICY_KINDS.join(", ")}.`, { field: "kind", allowed: [...POLICY_KINDS] });
  let holds: ApprovalHolds | null = null;
  if (kind === "approval") {
    if (input.required === true) throw malformed("An approval policy is not acknowledged by agents: required must be false.", { field: "required" });
    holds = parseApprovalHolds(input);
  } else if (namesApprovalFields(input)) {
    throw malformed("templates, recipients, senders, priorities and require_step_up belong to a policy of kind approval.", { field: "kind" });
  }
  const now = deps.clock.now();
  const policy = await stores.policies.publish({ workspaceId: ctx.principal.workspace.id, name: input.name, newId: deps.ids.next(), required: input.required ?? false, kind: kind as PolicyKind, holds, body: input.body, publishedAt: now, publishedBy: ctx.principal.kind === "person" ? null : ctx.principal.account.id });
  const view = policyView(policy);
  await stores.audit.append({ entry: policyAudit(deps, ctx, { activity: "policy.published", policy, occurredAt: now, details: { name: policy.name, version: policy.version, required: policy.required, ...(holds === null ? {} : { kind: policy.kind, holds: view.holds }) } }) });
  return policy;
}

/**
 * Records the caller's acknowledgement of a policy version, with its audit row
 * `policy.acknowledged`, in the caller's transaction. Acknowledging the current version again
 * succeeds again (and is audited again).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (no such policy, or a version never published),
 *   SVC_POLICY_VERSION_STALE (details.current_version).
 */
export async function acknowledgePolicy(deps: Pick<CoreDeps, "ids" | "clock">, stores: Stores, ctx: OperationContext, input: { policyId: string; version: number }): Promise<{ policy: Policy; acknowledgedAt: Date }> {
  if (!Number.isSafeInteger(input.version) || input.version < 1) throw malformed("version must be a positive integer.", { field: "version" });
  if (!isUlid(input.policyId)) throw notFound("Policy");
  const now = deps.clock.now();
  const result = await stores.policies.acknowledge({ workspaceId: ctx.principal.workspace.id, policyId: input.policyId, accountId: credentialCaller(ctx.principal).account.id, version: input.version, now });
  switch (result.kind) {
    case "not_found":
      throw notFound("Policy");
    case "unknown_version":
      throw new DomainError("SVC_RESOURCE_NOT_FOUND", "That version of the policy was never published.", { resource: "policy version", current_version: result.current.version });
    case "stale":
      throw new DomainError("SVC_POLICY_VERSION_STALE", "That version is no longer current; read the policies again (get_policies) and acknowledge the current version.", { policy_id: result.current.id, version: input.version, current_version: result.current.version });
    case "acknowledged":
      await stores.audit.append({ entry: policyAudit(deps, ctx, { activity: "policy.acknowledged", policy: result.policy, occurredAt: now, details: { name: result.policy.name, version: result.policy.version } }) });
      return { policy: result.policy, acknowledgedAt: result.acknowledgedAt };
  }
}

/**
 * The send gate: refuses a sender that has not acknowledged the current version of every
 * required policy of its workspace (one indexed read).
 * @throws DomainError SVC_POLICY_NOT_ACKNOWLEDGED (details.policies [{id, name, version}]).
 */
export async function checkPolicyGate(deps: Pick<CoreDeps, "stores">, ctx: OperationContext): Promise<void> {
  const missing = await deps.stores.policies.unacknowledgedRequired({ workspaceId: ctx.principal.workspace.id, accountId: credentialCaller(ctx.principal).account.id, limit: 20 });
  if (missing.length === 0) return;
  throw policyNotAcknowledged(missing.map((m) => ({ id: m.policyId, name: m.name, version: m.version })));
}

/** The policy gate's refusal, naming the policies still to acknowledge. */
export function policyNotAcknowledged(policies: { id: string; name: string; version: number }[]): DomainError {
  return new DomainError("SVC_POLICY_NOT_ACKNOWLEDGED", "This AI account has not acknowledged the current version of every required policy; read them with get_policies and acknowledge each.", { policies });
}

/** Audits a refused acknowledgement (`policy.acknowledge_refused`) outside any transaction. */
export async function auditAcknowledgeRefusal(deps: Pick<CoreDeps, "ids" | "clock" | "stores">, ctx: OperationContext, policyId: string, e: unknown): Promise<void> {
  if (!isDomainError(e) || (e.code !== "SVC_POLICY_VERSION_STALE" && e.code !== "SVC_RESOURCE_NOT_FOUND")) return;
  await auditRefusal(deps, ctx, { activity: "policy.acknowledge_refused", code: e.code, subjectType: "policy", subjectId: policyId, details: e.details ?? {} });
}
