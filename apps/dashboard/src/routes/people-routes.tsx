/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { notFound, type PeopleListItem, type PersonPrincipal } from "@agentq/core";
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

/** What invite_person and resend_invitation answer of the invitation. */
interface InvitationWire {
  invitation: { mailed: boolean };
}

/**
 * The People page (DESIGN §2b, the rules of /v1/people): the catalogue's list_people,
 * invite_person, change_person_role, resend_invitation and remove_person (the operations of
 * GET/POST /v1/people, PATCH and DELETE /v1/people/{id} and the invitation resend), so an
 * owner's or admin's session manages people and a viewer's is refused with 403
 * SVC_TIER_INSUFFICIENT. An invitation's mail goes out after the commit, as over REST; a mail
 * that fails is said on the page, never its cause. Removing oneself ends one's session (the
 * operation's session intent clears the cookie).
 */
export function registerPeopleRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const person = (c: Context<DashboardEnv>) => c.get("principal") as PersonPrincipal;
  const listPeople = async (c: Context<DashboardEnv>) => (await kit.run<{ items: PeopleListItem[] }>(c, { name: "list_people", input: {} })).items;
  const peoplePage = async (c: Context<DashboardEnv>, values: InviteValues = {}, error?: ReturnType<typeof refusalOf>) => {
    const people = await listPeople(c);
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
      const invited = await kit.run<InvitationWire>(c, { name: "invite_person", input: values });
      return c.redirect(`/people?done=${invited.invitation.mailed ? "invited" : "invited_unmailed"}`, 303);
    } catch (err) {
      return peoplePage(c, values, refusalOf(err, c.get("requestId")));
    }
  });
  app.post(
    "/people/:id/role",
    act(async (c, id) => {
      await kit.run(c, { name: "change_person_role", input: { person_id: id, role: (await readForm(c)).text("role") } });
      return "role_changed";
    }),
  );
  app.post(
    "/people/:id/invitation",
    act(async (c, id) => {
      const resent = await kit.run<InvitationWire>(c, { name: "resend_invitation", input: { person_id: id } });
      return resent.invitation.mailed ? "resent" : "resent_unmailed";
    }),
  );
  // Removing asks first, on a page of its own (a bare POST gets that page too).
  const removeConfirmation = async (c: Context<DashboardEnv>, id: string): Promise<Confirmation> => {
    const found = (await listPeople(c)).find((p) => p.id === id);
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
      await kit.run(c, { name: "remove_person", input: { person_id: id } });
      if (id !== person(c).person.id) return "removed";
      // Removing oneself ended one's own session too (the operation's session intent clears the cookie).
      return new Response(null, { status: 303, headers: { Location: "/sign-in", "Cache-Control": "no-store" } });
    }),
  );
}
