/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ActionForm } from "../components/action-form.tsx";
import { ConfirmLink } from "../components/confirm.tsx";
import { DataTable } from "../components/data-table.tsx";
import { FilterForm, SelectField, choicesOf } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LastActive } from "../components/last-active.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { hrefWith, Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import type { AiAccountWire, Page } from "../wire.ts";

/** The account states a filter offers (after "any"). */
const ACCOUNT_STATES = ["active", "frozen", "revoked"];

/** What the AI accounts page shows. */
export interface AccountsPageProps {
  accounts: Page<AiAccountWire>;
  query: Record<string, string | undefined>;
  newKey: () => string;
  error?: ShownError | undefined;
  done?: string | undefined;
  friendlyName?: string | undefined;
}

/** The AI accounts: create one, and each with its state and the actions its state allows. */
export function AccountsPage(props: AccountsPageProps) {
  return (
    <>
      <PageHeading title="AI accounts" done={props.done} error={props.error} />
      <form class="panel inline-form" method="post" action="/accounts">
        <input type="hidden" name="idempotency_key" value={props.newKey()} />
        <div>
          <label for="friendly_name">New AI account</label>
          <input id="friendly_name" name="friendly_name" type="text" required pattern="[a-z0-9][a-z0-9._\-]{0,62}" value={props.friendlyName ?? ""} aria-describedby="friendly-name-hint" />
          <p class="hint" id="friendly-name-hint">
            Lower-case letters, digits, '.', '_' and '-'; the name senders address it by.
          </p>
        </div>
        <button type="submit">Create</button>
      </form>
      <FilterForm action="/accounts">
        <SelectField name="state" label="State" choices={choicesOf(ACCOUNT_STATES, "")} selected={props.query.state ?? ""} />
      </FilterForm>
      <DataTable
        label="AI accounts"
        rows={props.accounts.items}
        empty={{ title: "No AI accounts here yet.", children: <p>Create one above, then issue it a credential.</p> }}
        rowAttrs={(a) => ({ "data-account": a.friendly_name })}
        columns={[
          { head: "Name", cell: (a) => <a href={`/accounts/${a.id}`}>{a.friendly_name}</a> },
          { head: "State", cell: (a) => <StateBadge state={a.state} /> },
          { head: "Created", cell: (a) => <LocalTime at={a.created_at} /> },
          { head: "Last active", cell: (a) => <LastActive at={a.last_active_at} /> },
          { head: "Actions", cell: (a) => <AccountActions account={a} newKey={props.newKey} back="/accounts" /> },
        ]}
      />
      <Pagination path="/accounts" query={props.query} nextCursor={props.accounts.next_cursor} />
    </>
  );
}

/** Freeze or unfreeze, and revoke, as the account's state allows. */
export function AccountActions(props: { account: AiAccountWire; newKey: () => string; back: string }) {
  const back = { back: props.back };
  const a = props.account;
  if (a.state === "revoked") return <span class="hint">No actions: revoked for good.</span>;
  return (
    <div class="actions">
      {a.state === "active" ? <ActionForm action={`/accounts/${a.id}/freeze`} label={`Freeze ${a.friendly_name}`} idempotencyKey={props.newKey()} tone="secondary" hidden={back} /> : <ActionForm action={`/accounts/${a.id}/unfreeze`} label={`Unfreeze ${a.friendly_name}`} idempotencyKey={props.newKey()} tone="secondary" hidden={back} />}
      <ConfirmLink href={hrefWith(`/accounts/${a.id}/revoke`, back)} label={`Revoke ${a.friendly_name}`} />
    </div>
  );
}
