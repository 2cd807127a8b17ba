/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { EmptyState } from "../components/empty-state.tsx";
import { LiveRegion, LiveToggle } from "../components/live-region.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { DataTable } from "../components/data-table.tsx";
import { WorkspaceHistory } from "../charts/workspace-history.tsx";
import type { AuditRowWire, WebhookWire, WorkspaceStatsWire } from "../wire.ts";
import { WEBHOOK_HEALTH_COLUMNS, webhookNameColumn } from "./webhooks-page.tsx";

/** GET /v1/messages/counts: waiting messages per recipient and the dead letters. */
export interface MessageCountsWire {
  recipients: { ai_account_id: string; friendly_name: string; pending: number; held: number }[];
  dead_lettered: number;
}

/**
 * The overview: what waits for whom, the dead letters, the webhooks' health and the latest audit
 * rows (the live region, `liveId`), then the history's charts (none in a live region's poll).
 */
export function OverviewPage(props: { liveId: string; workspaceName: string; counts: MessageCountsWire; webhooks: WebhookWire[]; audit: AuditRowWire[]; stats: WorkspaceStatsWire | null }) {
  const pending = props.counts.recipients.reduce((n, r) => n + r.pending, 0);
  const held = props.counts.recipients.reduce((n, r) => n + r.held, 0);
  const failing = props.webhooks.filter((w) => w.health.status === "failing").length;
  return (
    <>
      <h1>{props.workspaceName}</h1>
      <LiveToggle />
      <LiveRegion id={props.liveId} href="/">
      <ul class="tiles" aria-label="Counts">
        <li class="tile">
          <span class="count" data-count="pending">{pending}</span>
          <span class="what">pending messages</span>
        </li>
        <li class="tile">
          <span class="count" data-count="held">{held}</span>
          <span class="what">held (claimed, not yet acknowledged)</span>
        </li>
        <li class="tile">
          <a href="/messages?state=dead_lettered">
            <span class="count" data-count="dead_lettered">{props.counts.dead_lettered}</span>
          </a>
          <span class="what">dead letters</span>
        </li>
        <li class="tile">
          <span class="count" data-count="failing_webhooks">{failing}</span>
          <span class="what">failing webhooks of {props.webhooks.length}</span>
        </li>
      </ul>
      <h2>Waiting, per recipient</h2>
      <DataTable
        label="Waiting messages per recipient"
        rows={props.counts.recipients}
        empty={{ title: "Nothing is waiting.", children: <p>No AI account has pending or held messages.</p> }}
        rowAttrs={(r) => ({ "data-recipient": r.friendly_name })}
        columns={[
          { head: "Recipient", cell: (r) => <a href={`/messages?recipient=${encodeURIComponent(r.friendly_name)}`}>{r.friendly_name}</a> },
          { head: "Pending", num: true, cell: (r) => r.pending },
          { head: "Held", num: true, cell: (r) => r.held },
        ]}
      />
      <h2>Webhooks</h2>
      <DataTable
        label="Webhook health"
        rows={props.webhooks}
        empty={{
          title: "No webhooks.",
          children: (
            <p>
              <a href="/webhooks">Add one</a> to push messages to an agent instead of it polling.
            </p>
          ),
        }}
        columns={[webhookNameColumn("Webhook"), ...WEBHOOK_HEALTH_COLUMNS]}
      />
      <h2>Recent activity</h2>
      {props.audit.length === 0 ? (
        <EmptyState title="No activity yet." />
      ) : (
        <ol class="timeline">
          {props.audit.map((r) => (
            <li>
              <LocalTime at={r.occurred_at} /> <code>{r.activity}</code>
            </li>
          ))}
        </ol>
      )}
      </LiveRegion>
      <p>
        <a href="/audit">The whole audit log</a>
      </p>
      {props.stats === null ? null : <WorkspaceHistory stats={props.stats} action="/" />}
    </>
  );
}
