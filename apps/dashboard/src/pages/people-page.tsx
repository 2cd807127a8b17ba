/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { PeopleListItem } from "@agentq/core";
import { ActionForm } from "../components/action-form.tsx";
import { ConfirmLink } from "../components/confirm.tsx";
import { DataTable } from "../components/data-table.tsx";
import { SelectField, choicesOf, type Choice } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LocalTime } from "../components/local-time.tsx";

const ROLES = ["owner", "admin", "viewer"] as const;

/** The values the invitation form is shown again with after a refusal. */
export interface InviteValues {
  email?: string | undefined;
  role?: string | undefined;
}

/**
 * The people of the workspace (owners and admins see it; DESIGN §2b): each person's role,
 * two-step verification and whether they have set a password; invite by email, change a role,
 * resend an invitation, remove. Only an owner is offered the owner role.
 */
export function PeoplePage(props: { people: PeopleListItem[]; me: { id: string; role: string }; values: InviteValues; error?: ShownError | undefined; done?: string | undefined }) {
  const roles = choicesOf(ROLES.filter((r) => r !== "owner" || props.me.role === "owner"));
  return (
    <>
      <PageHeading title="People" done={props.done} error={props.error} />
      <p>Owners and admins administer the workspace; a viewer reads only. Only an owner grants or takes away the owner role, and the last owner stays.</p>
      <DataTable
        label="People"
        rows={props.people}
        rowAttrs={(p) => ({ "data-person": p.email })}
        columns={[
          {
            head: "Person",
            cell: (p) => (
              <>
                {p.display_name ?? p.email}
                {p.display_name === null ? null : <div class="hint">{p.email}</div>}
                {p.password_set ? null : <div class="hint">invited, no password yet</div>}
                {p.id === props.me.id ? <div class="hint">you</div> : null}
              </>
            ),
          },
          { head: "Role", cell: (p) => p.role, attrs: (p) => ({ "data-role": p.role }) },
          { head: "Two-step verification", cell: (p) => (p.mfa_enabled ? "on" : "off") },
          { head: "Since", cell: (p) => <LocalTime at={p.created_at} /> },
          { head: "Actions", cell: (p) => (p.role === "owner" && props.me.role !== "owner" ? null : <PersonActions person={p} roles={roles} />) },
        ]}
      />
      <form class="panel inline-form" method="post" action="/people">
        <div>
          <label for="invite-email">Invite by email</label>
          <input id="invite-email" name="email" type="email" autocomplete="off" value={props.values.email ?? ""} required />
        </div>
        <SelectField id="invite-role" name="role" label="Role" choices={roles} selected={props.values.role ?? "viewer"} />
        <button type="submit">Invite</button>
      </form>
      <p class="hint">The invitation mails a single-use link to set a password, valid 72 hours.</p>
    </>
  );
}

/** Change the role of a person, resend their invitation (until they set a password), remove them. */
function PersonActions(props: { person: PeopleListItem; roles: Choice[] }) {
  const p = props.person;
  return (
    <div class="actions">
      <form class="inline-form" method="post" action={`/people/${p.id}/role`}>
        <SelectField id={`role-${p.id}`} name="role" label={`Role of ${p.email}`} choices={props.roles} selected={p.role} />
        <button type="submit" class="secondary">
          Change
        </button>
      </form>
      {p.password_set ? null : <ActionForm action={`/people/${p.id}/invitation`} label={`Resend the invitation to ${p.email}`} tone="secondary" />}
      <ConfirmLink href={`/people/${p.id}/remove`} label={`Remove ${p.email}`} />
    </div>
  );
}
