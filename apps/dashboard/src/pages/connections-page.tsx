/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ConfirmLink } from "../components/confirm.tsx";
import { DataTable, type Column } from "../components/data-table.tsx";
import { DoneNotice, ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { LastActive } from "../components/last-active.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { Pagination } from "../components/pagination.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import type { ConnectionWire, Page } from "../wire.ts";

const REVOKED_BECAUSE: Record<string, string> = {
  disconnected: "disconnected here",
  refresh_token_replayed: "a spent refresh token came back",
  authorization_code_replayed: "an authorization code was used twice",
  revoked_by_client: "the client revoked it",
  ai_account_revoked: "its AI account was revoked",
};

const CONNECTION_COLUMNS: Column<ConnectionWire>[] = [
  {
    head: "Client",
    cell: (k) => (
      <>
        <span class="client-name">{k.client_name ?? "(no name)"}</span>
        <div class="hint">
          <code>{k.redirect_host}</code> (name given by the client, not verified)
        </div>
      </>
    ),
  },
  { head: "AI account", cell: (k) => <a href={`/accounts/${k.ai_account.id}`}>{k.ai_account.friendly_name}</a> },
  { head: "Scopes", cell: (k) => k.scopes.map((s, i) => (i === 0 ? <code>{s}</code> : <> <code>{s}</code></>)) },
  { head: "Connected", cell: (k) => <LocalTime at={k.created_at} /> },
  { head: "Last used", cell: (k) => <LastActive at={k.last_used_at} /> },
  {
    head: "State",
    cell: (k) => (
      <>
        <StateBadge state={k.state} />
        {k.revoked_reason === null ? null : <div class="hint">{REVOKED_BECAUSE[k.revoked_reason] ?? k.revoked_reason}</div>}
      </>
    ),
  },
];

function disconnectColumn(): Column<ConnectionWire> {
  return { head: "Action", cell: (k) => (k.state === "revoked" ? null : <ConfirmLink href={`/connections/${k.id}/disconnect`} label={`Disconnect ${k.client_name ?? k.redirect_host}`} />) };
}

/**
 * The workspace's Connections: each MCP client that was authorized with OAuth, the AI account it
 * acts as, its scopes and when it was last used; Disconnect ends it at once (not for a viewer).
 */
export function ConnectionsPage(props: { connections: Page<ConnectionWire>; query: Record<string, string | undefined>; canDisconnect: boolean; newKey: () => string; error?: ShownError | undefined; done?: string | undefined }) {
  return (
    <>
      <h1>Connections</h1>
      <p>MCP clients (Claude Code, Cursor, ...) that signed in with OAuth. Each acts as one AI account with the scopes shown; disconnecting revokes its tokens at once and the client must be authorized again.</p>
      {props.done === undefined ? null : <DoneNotice text={props.done} />}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <DataTable
        label="Connections"
        rows={props.connections.items}
        empty={{ title: "No connections yet.", children: <p>A connection appears when an MCP client is authorized for this workspace with OAuth.</p> }}
        rowAttrs={(k) => ({ "data-connection": k.id })}
        columns={[...CONNECTION_COLUMNS, ...(props.canDisconnect ? [disconnectColumn()] : [])]}
      />
      <Pagination path="/connections" query={props.query} nextCursor={props.connections.next_cursor} />
    </>
  );
}
