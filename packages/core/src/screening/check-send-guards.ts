import type { AiAccount } from "../access/model.ts";
import { auditRefusal } from "../audit/refusal-audit.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, isDomainError } from "../errors.ts";
import type { OperationContext } from "../operation.ts";
import { checkMonthlyMessageCap } from "../plans/plan-caps.ts";
import { checkPolicyGate } from "../policies/workspace-policies.ts";
import { credentialCaller, callerKey } from "../access/principal.ts";

/** The refusal codes of the send guards (each audited when a real send is refused). */
export const SEND_GUARD_CODES: ReadonlySet<string> = new Set(["SVC_SANCTIONS_BLOCKED", "SVC_SANCTIONS_REVIEW_PENDING", "SVC_POLICY_NOT_ACKNOWLEDGED", "SVC_PLAN_LIMIT_EXCEEDED"]);

/**
 * The guard rails of a send, after its own checks passed (shared by send and validate, so the
 * dry run answers what the send would): sanctions screening of sender and recipient, the policy
 * gate (one indexed read), then the monthly plan cap. A real send (`dryRun: false`) counts
 * towards this process's monthly estimate. With `policyGateInWrite` the policy gate is not read
 * here (the send's write checks it in its own statement), except when the plan cap refuses, so
 * that a send refused by both still answers with the policy gate's refusal, as it comes first. Refusals are not audited here: the send audits them
 * (`auditSendRefusal`) once it knows the request is not an idempotent replay.
 * @throws DomainError SVC_SANCTIONS_BLOCKED, SVC_SANCTIONS_REVIEW_PENDING,
 *   SVC_POLICY_NOT_ACKNOWLEDGED, SVC_PLAN_LIMIT_EXCEEDED.
 */
export async function checkSendGuards(deps: CoreDeps, ctx: OperationContext, recipient: AiAccount, opts: { dryRun: boolean; policyGateInWrite?: boolean }): Promise<void> {
  const sender = credentialCaller(ctx.principal).account;
  if (deps.sanctions !== undefined) {
    const result = await deps.sanctions.screen({
      parties: [
        { workspaceId: sender.workspaceId, accountId: sender.id, friendlyName: sender.friendlyName },
        { workspaceId: recipient.workspaceId, accountId: recipient.id, friendlyName: recipient.friendlyName },
      ],
    });
    if (result.status !== "clear") {
      const participant = result.party.accountId === sender.id ? "sender" : "recipient";
      throw result.status === "blocked"
        ? new DomainError("SVC_SANCTIONS_BLOCKED", "A participant in this send is sanctions-blocked; this is not retryable.", { participant })
        : new DomainError("SVC_SANCTIONS_REVIEW_PENDING", "A participant in this send is held pending sanctions review; a review of the decision can be requested.", { participant });
    }
  }
  if (opts.policyGateInWrite !== true) await checkPolicyGate(deps, ctx);
  try {
    await checkMonthlyMessageCap(deps, ctx.principal.workspace.id, { spend: !opts.dryRun });
  } catch (e) {
    if (opts.policyGateInWrite === true) await checkPolicyGate(deps, ctx);
    throw e;
  }
}

/**
 * Audits a refused send (`message.send_refused`, details {code, ...the error's details}) outside
 * any transaction, when `e` is a send-guard refusal; sanctions refusals are
 * operator-significant (withheld from the workspace's own audit view).
 */
export async function auditSendRefusal(deps: CoreDeps, ctx: OperationContext, e: unknown): Promise<void> {
  if (!isDomainError(e) || !SEND_GUARD_CODES.has(e.code)) return;
  await auditRefusal(deps, ctx, { activity: "message.send_refused", code: e.code, subjectType: "ai_account", subjectId: callerKey(ctx.principal), details: e.details ?? {}, operatorSignificant: e.code.startsWith("SVC_SANCTIONS_") });
}
