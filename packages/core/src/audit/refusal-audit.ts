import type { ErrorCode } from "../errors.ts";
import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import { actorColumns, actorDetails } from "../access/principal.ts";

/**
 * Appends the audit row of a refused request, outside any transaction (the refused change
 * rolled back, the refusal stays on record). Activity names end in `_refused`; details carry
 * the SVC_ code.
 */
export async function auditRefusal(
  deps: Pick<CoreDeps, "ids" | "clock" | "stores">,
  ctx: OperationContext,
  p: { activity: string; code: ErrorCode; subjectType: string; subjectId: string; details?: Record<string, unknown>; operatorSignificant?: boolean },
): Promise<void> {
  await deps.stores.audit.append({
    entry: {
      id: deps.ids.next(),
      workspaceId: ctx.principal.workspace.id,
      occurredAt: deps.clock.now(),
      activity: p.activity,
      ...actorColumns(ctx.principal),
      subjectType: p.subjectType,
      subjectId: p.subjectId,
      messageId: null,
      details: { code: p.code, ...p.details, ...actorDetails(ctx.principal) },
      operatorSignificant: p.operatorSignificant ?? false,
      requestId: ctx.requestId,
    },
  });
}
