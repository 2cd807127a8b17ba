/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { Facts } from "../components/facts.tsx";
import { LastActive } from "../components/last-active.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { WorkspaceHistory } from "../charts/workspace-history.tsx";
import type { AiAccountWire, CredentialWire, Page, WorkspaceStatsWire } from "../wire.ts";
import { AccountActions } from "./accounts-page.tsx";
import { CredentialsTable } from "./credentials-page.tsx";

/**
 * One AI account: its facts (when it was last active, what waits for it now), rename, its
 * actions, its credentials (each with when it was last used), and its history as recipient: the
 * minute series of the messages sent to it (`get_workspace_stats` with `ai_account_id`).
 */
export function AccountPage(props: {
  account: AiAccountWire;
  credentials: Page<CredentialWire>;
  waiting: { pending: number; held: number };
  stats: WorkspaceStatsWire;
  newKey: () => string;
  error?: ShownError | undefined;
  done?: string | undefined;
}) {
  const a = props.account;
  return (
    <>
      <PageHeading title={a.friendly_name} back={{ href: "/accounts", label: "AI accounts" }} done={props.done} error={props.error} />
      <section class="panel">
        <Facts
          facts={[
            { term: "State", value: <StateBadge state={a.state} /> },
            { term: "Id", value: <code>{a.id}</code> },
            { term: "Created", value: <LocalTime at={a.created_at} /> },
            { term: "Last active", value: <LastActive at={a.last_active_at} /> },
            {
              term: "Waiting for it now",
              value: (
                <a href={`/messages?recipient=${encodeURIComponent(a.friendly_name)}`} data-waiting="">
                  {props.waiting.pending} pending, {props.waiting.held} held
                </a>
              ),
            },
          ]}
        />
      </section>
      <AccountActions account={a} newKey={props.newKey} back={`/accounts/${a.id}`} />
      {a.state === "revoked" ? null : (
        <form class="panel inline-form" method="post" action={`/accounts/${a.id}/rename`}>
          <input type="hidden" name="idempotency_key" value={props.newKey()} />
          <div>
            <label for="rename">New name</label>
            <input id="rename" name="friendly_name" type="text" required value={a.friendly_name} />
          </div>
          <button type="submit" class="secondary">
            Rename
          </button>
        </form>
      )}
      <h2>Credentials</h2>
      {a.state === "revoked" ? null : (
        <p>
          <a class="button" href={`/credentials/new?ai_account_id=${a.id}`}>
            Issue a credential
          </a>
        </p>
      )}
      <CredentialsTable credentials={props.credentials} accounts={new Map([[a.id, a.friendly_name]])} newKey={props.newKey} />
      <WorkspaceHistory
        stats={props.stats}
        action={`/accounts/${a.id}`}
        note={
          <p class="hint" data-history-note="">
            {a.friendly_name} as recipient: the messages sent to it, those it acknowledged, those dead-lettered from its queue, and what waited for it. The Overview has the whole workspace's.
          </p>
        }
      />
    </>
  );
}
