/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { malformed, MESSAGING_LIMITS } from "@agentq/core";
import type { Context, Hono } from "hono";
import { confirmed, type Confirmation } from "../components/confirm.tsx";
import { confirmationPage } from "../confirm-step.tsx";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { ApprovalPage, ApprovalsPage } from "../pages/approvals-page.tsx";
import { needsStepUp, stepUpLocation } from "../step-up-redirect.ts";
import type { ApprovalWire, Page } from "../wire.ts";

const DONE: Record<string, string> = { approved: "Approved: the message is pending for its recipient.", rejected: "Rejected: the message will never be delivered." };

/**
 * The approvals pages (DESIGN §2c): the waiting list, one held message with its payload, and
 * approve or reject (the catalogue's approve_message and reject_message; a policy that asks for
 * it sends the person through the step-up page first, back to the message). Rejecting asks first:
 * the approval page's Reject answers with a confirmation page of its own (the reason carried on),
 * as does a bare POST; only the confirmed form rejects.
 */
export function registerApprovalRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const listPage = async (c: Context<DashboardEnv>) => {
    const approvals = await kit.run<Page<ApprovalWire>>(c, { name: "list_approvals", input: { cursor: c.req.query("cursor") || undefined } });
    return kit.page(c, { title: "Approvals", current: "approvals" }, <ApprovalsPage approvals={approvals} done={DONE[c.req.query("done") ?? ""]} />);
  };
  const approvalPage = async (c: Context<DashboardEnv>, id: string, error?: ReturnType<typeof refusalOf>) => {
    const approval = await kit.run<ApprovalWire>(c, { name: "get_approval", input: { message_id: id } });
    return kit.page(c, { title: "Approve message", current: "approvals", status: error?.status }, <ApprovalPage approval={approval} newKey={kit.newKey} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };

  const rejectConfirmation = async (c: Context<DashboardEnv>, id: string, reason: string): Promise<Confirmation> => {
    const a = await kit.run<ApprovalWire>(c, { name: "get_approval", input: { message_id: id } });
    return {
      title: `Reject the message from ${a.envelope.sender.friendly_name}?`,
      consequences: (
        <>
          <p>
            The message <code>{id}</code> from <strong>{a.envelope.sender.friendly_name}</strong> to <strong>{a.envelope.recipient.friendly_name}</strong> ({a.envelope.template}) is never delivered.
          </p>
          {reason === "" ? <p>No reason is recorded.</p> : <p>The reason recorded on its timeline: {reason}</p>}
          <p>A rejected message cannot be approved later: the sender must send it again.</p>
        </>
      ),
      action: `/approvals/${id}/reject`,
      button: "Reject it",
      cancel: `/approvals/${id}`,
      hidden: reason === "" ? undefined : { reason },
      idempotencyKey: kit.newKey(),
    };
  };

  app.get("/approvals", (c) => listPage(c));
  app.get("/approvals/:id", (c) => approvalPage(c, c.req.param("id")));
  for (const [action, operation, done] of [
    ["approve", "approve_message", "approved"],
    ["reject", "reject_message", "rejected"],
  ] as const) {
    app.post(`/approvals/:id/${action}`, async (c) => {
      const id = c.req.param("id");
      const form = await readForm(c);
      const reason = form.text("reason");
      if (action === "reject" && !confirmed(form)) {
        // The reason is shown and carried on: one over the operation's bound is refused as the operation would.
        const max = MESSAGING_LIMITS.rejectReasonMaxLength;
        if (reason.length > max) return approvalPage(c, id, refusalOf(malformed(`reason must be at most ${max} characters.`, { field: "reason", max_length: max }), c.get("requestId")));
        return confirmationPage(kit, c, "approvals", await rejectConfirmation(c, id, reason));
      }
      try {
        await kit.run(c, { name: operation, input: { message_id: id, ...(action === "reject" && reason !== "" ? { reason } : {}) }, idempotencyKey: form.text("idempotency_key") });
      } catch (err) {
        if (needsStepUp(err)) return c.redirect(stepUpLocation(`/approvals/${encodeURIComponent(id)}`), 303);
        return approvalPage(c, id, refusalOf(err, c.get("requestId")));
      }
      return c.redirect(`/approvals?done=${done}`, 303);
    });
  }
}
