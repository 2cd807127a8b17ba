/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
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
 * it sends the person through the step-up page first, back to the message).
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
