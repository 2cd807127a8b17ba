/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { PeopleListItem } from "@agentq/core";
import { ActionForm } from "../components/action-form.tsx";
import { DoneNotice, ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { TableRegion } from "../components/table-region.tsx";

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
  const offered = ROLES.filter((r) => r !== "owner" || props.me.role === "owner");
  return (
    <>
      <h1>People</h1>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <p>Owners and admins administer the workspace; a viewer reads only. Only an owner grants or takes away the owner role, and the last owner stays.</p>
      <TableRegion label="People">
        <table>
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role</th>
              <th scope="col">Two-step verification</th>
              <th scope="col">Since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {props.people.map((p) => (
              <tr data-person={p.email}>
                <td>
                  {p.display_name ?? p.email}
                  {p.display_name === null ? null : <div class="hint">{p.email}</div>}
                  {p.password_set ? null : <div class="hint">invited, no password yet</div>}
                  {p.id === props.me.id ? <div class="hint">you</div> : null}
                </td>
                <td data-role={p.role}>{p.role}</td>
                <td>{p.mfa_enabled ? "on" : "off"}</td>
                <td>
                  <LocalTime at={p.created_at} />
                </td>
                <td>
                  {p.role === "owner" && props.me.role !== "owner" ? null : (
                    <div class="actions">
                      <form class="inline-form" method="post" action={`/people/${p.id}/role`}>
                        <div>
                          <label for={`role-${p.id}`}>Role of {p.email}</label>
                          <select id={`role-${p.id}`} name="role">
                            {offered.map((r) => (
                              <option value={r} selected={r === p.role}>
                                {r}
                              </option>
                            ))}
                          </select>
                        </div>
                        <button type="submit" class="secondary">
                          Change
                        </button>
                      </form>
                      {p.password_set ? null : <ActionForm action={`/people/${p.id}/invitation`} label={`Resend the invitation to ${p.email}`} tone="secondary" />}
                      <ActionForm action={`/people/${p.id}/remove`} label={`Remove ${p.email}`} tone="danger" />
                    </div>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableRegion>
      <form class="panel inline-form" method="post" action="/people">
        <div>
          <label for="invite-email">Invite by email</label>
          <input id="invite-email" name="email" type="email" autocomplete="off" value={props.values.email ?? ""} required />
        </div>
        <div>
          <label for="invite-role">Role</label>
          <select id="invite-role" name="role">
            {offered.map((r) => (
              <option value={r} selected={r === (props.values.role ?? "viewer")}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Invite</button>
      </form>
      <p class="hint">The invitation mails a single-use link to set a password, valid 72 hours.</p>
    </>
  );
}
