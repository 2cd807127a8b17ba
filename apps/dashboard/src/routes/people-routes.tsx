/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { changePersonRole, invitePerson, listPeople, notFound, removePerson, resendInvitation, sendMail, type MailMessage, type PersonPrincipal } from "@agentq/core";
import { clearCookieHeader, type SessionEdge } from "@agentq/http";
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { confirmed, type Confirmation } from "../components/confirm.tsx";
import { confirmationPage } from "../confirm-step.tsx";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { PeoplePage, type InviteValues } from "../pages/people-page.tsx";

const DONE: Record<string, string> = {
  invited: "Invited: the link to set a password is mailed, valid 72 hours.",
  invited_unmailed: "Invited, but the mail could not be sent. Resend the invitation once mail works.",
  resent: "A new invitation is mailed; earlier links stop working.",
  resent_unmailed: "A new invitation was made, but the mail could not be sent.",
  role_changed: "Role changed.",
  removed: "Removed: their sessions have ended.",
};

/**
 * The People page (DESIGN §2b, the rules of /v1/people): the same core use cases as GET/POST
 * /v1/people, PATCH and DELETE /v1/people/{id} and the invitation resend, so an owner's or
 * admin's session manages people and a viewer's is refused with 403 SVC_TIER_INSUFFICIENT. An
 * invitation's mail goes out after the commit, as over REST; a mail that fails is said on the
 * page, never its cause.
 */
export function registerPeopleRoutes(app: Hono<DashboardEnv>, kit: PageKit, sessions: SessionEdge): void {
  const person = (c: Context<DashboardEnv>) => c.get("principal") as PersonPrincipal;
  const requestId = (c: Context<DashboardEnv>) => ({ requestId: c.get("requestId") });
  const mailed = async (message: MailMessage): Promise<boolean> => {
    try {
      await sendMail(kit.deps, message);
      return true;
    } catch {
      return false;
    }
  };
  const peoplePage = async (c: Context<DashboardEnv>, values: InviteValues = {}, error?: ReturnType<typeof refusalOf>) => {
    const people = await listPeople(kit.deps, person(c));
    const me = { id: person(c).person.id, role: person(c).person.role };
    return kit.page(c, { title: "People", current: "people", status: error?.status }, <PeoplePage people={people} me={me} values={values} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };
  const act = (run: (c: Context<DashboardEnv>, id: string) => Promise<string | Response>) => async (c: Context<DashboardEnv>) => {
    try {
      const done = await run(c, c.req.param("id") ?? "");
      return typeof done === "string" ? c.redirect(`/people?done=${done}`, 303) : done;
    } catch (err) {
      return peoplePage(c, {}, refusalOf(err, c.get("requestId")));
    }
  };

  app.get("/people", (c) => peoplePage(c));
  app.post("/people", async (c) => {
    const form = await readForm(c);
    const values = { email: form.text("email"), role: form.text("role") };
    try {
      const invited = await invitePerson(kit.deps, person(c), values, requestId(c));
      return c.redirect(`/people?done=${(await mailed(invited.mail)) ? "invited" : "invited_unmailed"}`, 303);
    } catch (err) {
      return peoplePage(c, values, refusalOf(err, c.get("requestId")));
    }
  });
  app.post(
    "/people/:id/role",
    act(async (c, id) => {
      await changePersonRole(kit.deps, person(c), { personId: id, role: (await readForm(c)).text("role") }, requestId(c));
      return "role_changed";
    }),
  );
  app.post(
    "/people/:id/invitation",
    act(async (c, id) => {
      const invitation = await resendInvitation(kit.deps, person(c), { personId: id }, requestId(c));
      return (await mailed(invitation.mail)) ? "resent" : "resent_unmailed";
    }),
  );
  // Removing asks first, on a page of its own (a bare POST gets that page too).
  const removeConfirmation = async (c: Context<DashboardEnv>, id: string): Promise<Confirmation> => {
    const found = (await listPeople(kit.deps, person(c))).find((p) => p.id === id);
    if (found === undefined) throw notFound("Person");
    const self = id === person(c).person.id;
    return {
      title: self ? "Remove yourself from the workspace?" : `Remove ${found.email}?`,
      consequences: (
        <p>
          {self ? "You" : <strong>{found.email}</strong>} can no longer sign in to this workspace; {self ? "your" : "their"} sessions end at once. To come back, {self ? "you" : "they"} must be invited again.
        </p>
      ),
      action: `/people/${id}/remove`,
      button: self ? "Remove me" : `Remove ${found.email}`,
      cancel: "/people",
    };
  };
  app.get("/people/:id/remove", async (c) => confirmationPage(kit, c, "people", await removeConfirmation(c, c.req.param("id"))));
  app.post(
    "/people/:id/remove",
    act(async (c, id) => {
      if (!confirmed(await readForm(c))) return confirmationPage(kit, c, "people", await removeConfirmation(c, id));
      await removePerson(kit.deps, person(c), { personId: id }, requestId(c));
      if (id !== person(c).person.id) return "removed";
      // Removing oneself ends one's own session too.
      const headers = new Headers({ Location: "/sign-in", "Cache-Control": "no-store" });
      headers.append("Set-Cookie", clearCookieHeader(sessions.cookies, sessions.cookies.session));
      return new Response(null, { status: 303, headers });
    }),
  );
}
