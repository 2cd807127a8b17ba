/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { DoneNotice, ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { TableRegion } from "../components/table-region.tsx";
import type { AiAccountWire, CredentialWire, Page } from "../wire.ts";

/** How long a rotated credential keeps working beside its successor. */
export const OVERLAP_CHOICES = [
  { value: "PT5M", label: "5 minutes" },
  { value: "PT1H", label: "1 hour" },
  { value: "P1D", label: "1 day" },
] as const;

/** The credentials of the workspace (or one account), with issue, rotate and revoke. */
export function CredentialsPage(props: { credentials: Page<CredentialWire>; accounts: AiAccountWire[]; query: Record<string, string | undefined>; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
  const names = new Map(props.accounts.map((a) => [a.id, a.friendly_name]));
  return (
    <>
      <h1>Credentials</h1>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <p>
        <a class="button" href="/credentials/new">
          Issue a credential
        </a>
      </p>
      <form class="filters" method="get" action="/credentials">
        <div>
          <label for="ai_account_id">AI account</label>
          <select id="ai_account_id" name="ai_account_id">
            <option value="">any</option>
            {props.accounts.map((a) => (
              <option value={a.id} selected={props.query.ai_account_id === a.id}>
                {a.friendly_name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit" class="secondary">Show</button>
        </div>
      </form>
      <CredentialsTable credentials={props.credentials} accounts={names} newKey={props.newKey} />
      <Pagination path="/credentials" query={props.query} nextCursor={props.credentials.next_cursor} />
    </>
  );
}

/** A table of credentials: account, name, tier and scopes, state, expiry, rotate and revoke. */
export function CredentialsTable(props: { credentials: Page<CredentialWire>; accounts: Map<string, string>; newKey: () => string }) {
  if (props.credentials.items.length === 0) {
    return (
      <EmptyState title="No credentials yet.">
        <p>Issue one to let an agent call the service.</p>
      </EmptyState>
    );
  }
  return (
    <TableRegion label="Credentials">
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">AI account</th>
            <th scope="col">Tier and scopes</th>
            <th scope="col">State</th>
            <th scope="col">Expires</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {props.credentials.items.map((cr) => (
            <tr data-credential={cr.id}>
              <td>{cr.name}</td>
              <td>{props.accounts.get(cr.ai_account_id) ?? <code>{cr.ai_account_id}</code>}</td>
              <td>
                {cr.tier}
                <br />
                <span class="hint">{cr.scopes.join(", ")}</span>
              </td>
              <td>
                <StateBadge state={cr.state} />
              </td>
              <td>
                <LocalTime at={cr.expires_at} />
              </td>
              <td>{cr.state === "active" ? <CredentialActions credential={cr} newKey={props.newKey} /> : null}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableRegion>
  );
}

function CredentialActions(props: { credential: CredentialWire; newKey: () => string }) {
  const cr = props.credential;
  const overlapId = `overlap-${cr.id}`;
  return (
    <div class="actions">
      <form method="post" action={`/credentials/${cr.id}/rotate`} class="inline-form">
        <input type="hidden" name="idempotency_key" value={props.newKey()} />
        <div>
          <label for={overlapId}>Old one works for</label>
          <select id={overlapId} name="overlap_window">
            {OVERLAP_CHOICES.map((o) => (
              <option value={o.value} selected={o.value === "PT1H"}>
                {o.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          Rotate
        </button>
      </form>
      <ActionForm action={`/credentials/${cr.id}/revoke`} label="Revoke" idempotencyKey={props.newKey()} tone="danger" />
    </div>
  );
}
