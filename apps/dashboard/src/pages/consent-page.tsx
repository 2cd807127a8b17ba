/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";

/** What the consent page shows of an authorization request. */
export interface ConsentView {
  /** The client's name as it asserted it at registration (never verified), or null. */
  clientName: string | null;
  /** host[:port] of the redirect URI, or its scheme for a private-use URI (`cursor:`). */
  redirectHost: string;
  scopes: readonly string[];
  /** The MCP toolsets the person may choose (DESIGN §2c), and whether each is checked. */
  toolsets: ReadonlyArray<{ name: string; checked: boolean }>;
  /** The workspace's active AI accounts the client may act as. */
  accounts: ReadonlyArray<{ id: string; friendlyName: string }>;
  /** The name proposed for a new AI account (preselected when the workspace has none). */
  proposedName: string;
  /** The authorization request's parameters, carried through the form unchanged. */
  params: Readonly<Record<string, string>>;
  /** The form's anti-forgery token (bound to the session and to this request). */
  csrfToken: string;
  /** False for a viewer: the page then only offers to deny. */
  mayApprove: boolean;
  workspaceName: string;
}

/**
 * The consent page of GET /oauth/authorize (DESIGN §2b): who asks (self-asserted), where the
 * answer goes, what it may do, which MCP toolsets it is given (unchecking one leaves its scopes
 * out of the grant), and as which AI account (pick one, or name a new one created in the click). Approve and Deny post the same form; both are answered with a 303 to the client.
 * The page is rendered without htmx boosting (`boosted: false`): the form's answer leaves this origin.
 */
export function ConsentPage(props: { view: ConsentView; error?: ShownError | undefined }) {
  const v = props.view;
  const none = v.accounts.length === 0;
  return (
    <div class="narrow">
      <PageHeading title="Connect an application" error={props.error} />
      <div class="panel stack">
        <p>
          An application calling itself <strong data-testid="client-name">{v.clientName ?? "(no name given)"}</strong> asks to use agentq in the workspace <strong>{v.workspaceName}</strong>.
        </p>
        <p class="hint">The name is what the application says about itself; agentq has not verified it.</p>
        <p>
          After your answer the browser goes back to <code data-testid="redirect-host">{v.redirectHost}</code>. Continue only if you started this from that application.
        </p>
        <h2>It will be able to</h2>
        <ul data-testid="scopes">
          {v.scopes.map((s) => (
            <li>
              <code>{s}</code>
            </li>
          ))}
        </ul>
      </div>
      <form class="panel stack" method="post" action="/oauth/authorize">
        {Object.entries(v.params).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name="csrf_token" value={v.csrfToken} />
        {v.mayApprove && v.toolsets.length > 0 ? (
          <fieldset>
            <legend>Tools it is given</legend>
            {v.toolsets.map((t) => (
              <div class="choice">
                <input type="checkbox" id={`toolset-${t.name}`} name="toolsets" value={t.name} checked={t.checked} />
                <label for={`toolset-${t.name}`}>{t.name}</label>
              </div>
            ))}
            <p class="hint">Unchecked: the application gets neither those tools nor their scopes.</p>
          </fieldset>
        ) : null}
        {v.mayApprove ? (
          <fieldset>
            <legend>Act as the AI account</legend>
            {/* Nothing preselected when accounts exist: the person picks one (a wrong grant is easy otherwise). */}
            {v.accounts.map((a) => (
              <div class="choice">
                <input type="radio" id={`account-${a.id}`} name="ai_account" value={a.id} required />
                <label for={`account-${a.id}`}>{a.friendlyName}</label>
              </div>
            ))}
            <div class="choice">
              <input type="radio" id="account-new" name="ai_account" value="new" checked={none} required />
              <label for="account-new">A new AI account named</label>
              <input type="text" id="new-account-name" name="new_account_name" value={v.proposedName} aria-label="Name of the new AI account" pattern="[a-z0-9][a-z0-9._\-]{0,62}" />
            </div>
          </fieldset>
        ) : (
          <div class="notice error" role="alert" data-error-code="SVC_TIER_INSUFFICIENT">
            <p>Only an owner or admin of the workspace may connect an application. You can deny the request.</p>
          </div>
        )}
        <div class="actions">
          {v.mayApprove ? (
            <button type="submit" name="decision" value="approve">
              Approve
            </button>
          ) : null}
          <button type="submit" name="decision" value="deny" class="secondary" formnovalidate>
            Deny
          </button>
        </div>
      </form>
    </div>
  );
}
