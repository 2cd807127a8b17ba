/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { EmptyState } from "../components/empty-state.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { StateBadge } from "../components/state-badge.tsx";
import { TableRegion } from "../components/table-region.tsx";
import type { AuditRowWire, WebhookWire } from "../wire.ts";

/** GET /v1/messages/counts: waiting messages per recipient and the dead letters. */
export interface MessageCountsWire {
  recipients: { ai_account_id: string; friendly_name: string; pending: number; held: number }[];
  dead_lettered: number;
}

/** The overview: what waits for whom, the dead letters, the webhooks' health and the latest audit rows. */
export function OverviewPage(props: { workspaceName: string; counts: MessageCountsWire; webhooks: WebhookWire[]; audit: AuditRowWire[] }) {
  const pending = props.counts.recipients.reduce((n, r) => n + r.pending, 0);
  const held = props.counts.recipients.reduce((n, r) => n + r.held, 0);
  const failing = props.webhooks.filter((w) => w.health.status === "failing").length;
  return (
    <>
      <h1>{props.workspaceName}</h1>
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
      {props.counts.recipients.length === 0 ? (
        <EmptyState title="Nothing is waiting.">
          <p>No AI account has pending or held messages.</p>
        </EmptyState>
      ) : (
        <TableRegion label="Waiting messages per recipient">
          <table>
            <thead>
              <tr>
                <th scope="col">Recipient</th>
                <th scope="col" class="num">Pending</th>
                <th scope="col" class="num">Held</th>
              </tr>
            </thead>
            <tbody>
              {props.counts.recipients.map((r) => (
                <tr data-recipient={r.friendly_name}>
                  <td>
                    <a href={`/messages?recipient=${encodeURIComponent(r.friendly_name)}`}>{r.friendly_name}</a>
                  </td>
                  <td class="num">{r.pending}</td>
                  <td class="num">{r.held}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
      <h2>Webhooks</h2>
      {props.webhooks.length === 0 ? (
        <EmptyState title="No webhooks.">
          <p>
            <a href="/webhooks">Add one</a> to push messages to an agent instead of it polling.
          </p>
        </EmptyState>
      ) : (
        <TableRegion label="Webhook health">
          <table>
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">Health</th>
                <th scope="col" class="num">Waiting</th>
                <th scope="col" class="num">Dead</th>
              </tr>
            </thead>
            <tbody>
              {props.webhooks.map((w) => (
                <tr>
                  <td>
                    <a href={`/webhooks/${w.id}`}>{w.name}</a>
                  </td>
                  <td>
                    <StateBadge state={w.health.status} />
                  </td>
                  <td class="num">{(w.outbox.pending ?? 0) + (w.outbox.retrying ?? 0)}</td>
                  <td class="num">{w.outbox.dead ?? 0}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      )}
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
      <p>
        <a href="/audit">The whole audit log</a>
      </p>
    </>
  );
}
