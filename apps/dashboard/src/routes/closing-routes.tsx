/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { malformed, type PersonPrincipal } from "@agentq/core";
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { CloseWorkspacePage, ErasedPage, ErasePage, ExportPage } from "../pages/closing-pages.tsx";
import { renderPage } from "../render-page.tsx";
import { needsStepUp, stepUpFresh, stepUpLocation } from "../step-up-redirect.ts";

/** What erase_me answers. */
interface ErasedWire {
  erased: { erased_at: string };
  workspace: { state: "active" | "frozen" | "closed" };
}

/**
 * Export, close the workspace and erase me (DESIGN §2b), each behind a confirmation page. The
 * export downloads GET /v1/me/export itself; closing and erasing run the catalogue's
 * close_workspace and erase_me, the operations of DELETE /v1/workspaces/me and DELETE /v1/me (an
 * owner for closing; a fresh step-up for both, got through the step-up page when it is missing;
 * erasing ends the sessions, and its session intent clears the cookies). Confirmation is typing
 * the workspace's name or one's email address.
 */
export function registerClosingRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const person = (c: Context<DashboardEnv>) => c.get("principal") as PersonPrincipal;
  const steppedUp = (c: Context<DashboardEnv>) => stepUpFresh(person(c).session.stepUpUntil, kit.deps.clock.now());
  const closePage = (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) =>
    kit.page(c, { title: "Close the workspace", current: "settings", status: error?.status }, <CloseWorkspacePage workspaceName={person(c).workspace.name} role={person(c).person.role} steppedUp={steppedUp(c)} error={error?.error} />);
  const erasePage = (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) =>
    kit.page(c, { title: "Erase me", current: "settings", status: error?.status }, <ErasePage email={person(c).person.email} lastOwnerWarning={person(c).person.role === "owner"} steppedUp={steppedUp(c)} error={error?.error} />);

  app.get("/settings/export", (c) => kit.page(c, { title: "Export my data", current: "settings" }, <ExportPage role={person(c).person.role} />));

  app.get("/settings/close", (c) => closePage(c));
  app.post("/settings/close", async (c) => {
    const form = await readForm(c);
    try {
      if (form.text("confirm") !== person(c).workspace.name) throw malformed("Type the workspace's name exactly to confirm.", { field: "confirm" });
      await kit.run(c, { name: "close_workspace", input: {} });
      return c.redirect("/settings?done=closed", 303);
    } catch (err) {
      if (needsStepUp(err)) return c.redirect(stepUpLocation("/settings/close"), 303);
      return closePage(c, refusalOf(err, c.get("requestId")));
    }
  });

  app.get("/settings/erase", (c) => erasePage(c));
  app.post("/settings/erase", async (c) => {
    const form = await readForm(c);
    try {
      if (form.text("confirm").toLowerCase() !== person(c).person.email.toLowerCase()) throw malformed("Type your email address exactly to confirm.", { field: "confirm" });
      const erased = await kit.run<ErasedWire>(c, { name: "erase_me", input: {} });
      // Every session of the person is gone: the answer is a signed-out page (the operation's session intent clears the cookies).
      return renderPage(c, kit.assets, { title: "You are erased", viewer: null }, <ErasedPage erasedAt={erased.erased.erased_at} workspaceState={erased.workspace.state} />);
    } catch (err) {
      if (needsStepUp(err)) return c.redirect(stepUpLocation("/settings/erase"), 303);
      return erasePage(c, refusalOf(err, c.get("requestId")));
    }
  });
}
