/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ConfirmLink } from "../components/confirm.tsx";
import { DataTable } from "../components/data-table.tsx";
import { FilterForm, SelectField, ANY_CHOICE, accountChoices } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LastActive } from "../components/last-active.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
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
      <PageHeading title="Credentials" done={props.done} error={props.error} />
      <p>
        <a class="button" href="/credentials/new">
          Issue a credential
        </a>
      </p>
      <FilterForm action="/credentials">
        <SelectField name="ai_account_id" label="AI account" choices={[ANY_CHOICE, ...accountChoices(props.accounts)]} selected={props.query.ai_account_id} />
      </FilterForm>
      <CredentialsTable credentials={props.credentials} accounts={names} newKey={props.newKey} />
      <Pagination path="/credentials" query={props.query} nextCursor={props.credentials.next_cursor} />
    </>
  );
}

/** A table of credentials: account, name, tier and scopes, state, expiry, rotate and revoke. */
export function CredentialsTable(props: { credentials: Page<CredentialWire>; accounts: Map<string, string>; newKey: () => string }) {
  return (
    <DataTable
      label="Credentials"
      rows={props.credentials.items}
      empty={{ title: "No credentials yet.", children: <p>Issue one to let an agent call the service.</p> }}
      rowAttrs={(cr) => ({ "data-credential": cr.id })}
      columns={[
        { head: "Name", cell: (cr) => cr.name },
        { head: "AI account", cell: (cr) => props.accounts.get(cr.ai_account_id) ?? <code>{cr.ai_account_id}</code> },
        {
          head: "Tier and scopes",
          cell: (cr) => (
            <>
              {cr.tier}
              <br />
              <span class="hint">{cr.scopes.join(", ")}</span>
            </>
          ),
        },
        { head: "State", cell: (cr) => <StateBadge state={cr.state} /> },
        { head: "Last used", cell: (cr) => <LastActive at={cr.last_used_at} /> },
        { head: "Expires", cell: (cr) => <LocalTime at={cr.expires_at} /> },
        { head: "Actions", cell: (cr) => (cr.state === "active" ? <CredentialActions credential={cr} newKey={props.newKey} /> : null) },
      ]}
    />
  );
}

function CredentialActions(props: { credential: CredentialWire; newKey: () => string }) {
  const cr = props.credential;
  return (
    <div class="actions">
      <form method="post" action={`/credentials/${cr.id}/rotate`} class="inline-form">
        <input type="hidden" name="idempotency_key" value={props.newKey()} />
        <SelectField id={`overlap-${cr.id}`} name="overlap_window" label="Old one works for" choices={OVERLAP_CHOICES} selected="PT1H" />
        <button type="submit" class="secondary">
          Rotate
        </button>
      </form>
      <ConfirmLink href={`/credentials/${cr.id}/revoke`} label="Revoke" />
    </div>
  );
}
