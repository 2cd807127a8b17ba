/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES, TOOLSETS } from "@agentq/core";
import { SelectField, accountChoices } from "../components/filter-form.tsx";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import type { AiAccountWire } from "../wire.ts";

/** The values an issue form is shown again with after a refusal. */
export interface IssueValues {
  ai_account_id?: string | undefined;
  tier?: string | undefined;
  scopes?: string[] | undefined;
  name?: string | undefined;
  mcp_config?: boolean | undefined;
  toolsets?: string[] | undefined;
}

/** The form that issues a credential to an AI account. */
export function IssueCredentialPage(props: { accounts: AiAccountWire[]; values: IssueValues; idempotencyKey: string; error?: ShownError | undefined }) {
  const v = props.values;
  const tier = v.tier ?? "operational";
  const chosen = new Set(v.scopes ?? ["send", "get_pending", "ack", "nack", "list_recipients", "list_templates", "get_template", "get_policies", "acknowledge_policies"]);
  return (
    <div class="narrow-wide">
      <PageHeading title="Issue a credential" back={{ href: "/credentials", label: "Credentials" }} error={props.error} />
      <form class="panel stack" method="post" action="/credentials">
        <input type="hidden" name="idempotency_key" value={props.idempotencyKey} />
        <SelectField name="ai_account_id" label="AI account" required choices={accountChoices(props.accounts.filter((a) => a.state !== "revoked"))} selected={v.ai_account_id} />
        <div>
          <label for="name">Name</label>
          <input id="name" name="name" type="text" required maxlength={200} value={v.name ?? ""} aria-describedby="name-hint" />
          <p class="hint" id="name-hint">
            Which agent on which machine, e.g. "worker on box-1".
          </p>
        </div>
        <fieldset>
          <legend>Tier</legend>
          <div class="checks">
            <label>
              <input type="radio" name="tier" value="operational" checked={tier === "operational"} /> operational (an agent's own work)
            </label>
            <label>
              <input type="radio" name="tier" value="administrative" checked={tier === "administrative"} /> administrative (manages the workspace)
            </label>
          </div>
        </fieldset>
        <ScopeChecks legend="Operational scopes" scopes={OPERATIONAL_SCOPES} chosen={chosen} />
        <ScopeChecks legend="Administrative scopes" scopes={ADMINISTRATIVE_SCOPES} chosen={chosen} hint="Only with the administrative tier." />
        <div class="checks">
          <label>
            <input type="checkbox" name="mcp_config" value="1" checked={v.mcp_config ?? true} /> also show an MCP client configuration
          </label>
        </div>
        <fieldset>
          <legend>MCP toolsets</legend>
          <div class="checks">
            {TOOLSETS.map((t) => (
              <label>
                <input type="checkbox" name="toolsets" value={t} checked={(v.toolsets ?? []).includes(t)} /> {t}
              </label>
            ))}
          </div>
          <p class="hint">The tools the configuration's client is shown (its URL names them); none checked: every toolset the scopes allow.</p>
        </fieldset>
        <div class="actions">
          <button type="submit">Issue</button>
        </div>
      </form>
    </div>
  );
}

/** A fieldset of scope checkboxes, those in `chosen` checked. */
function ScopeChecks(props: { legend: string; scopes: readonly string[]; chosen: Set<string>; hint?: string }) {
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <div class="checks">
        {props.scopes.map((s) => (
          <label>
            <input type="checkbox" name="scopes" value={s} checked={props.chosen.has(s)} /> {s}
          </label>
        ))}
      </div>
      {props.hint === undefined ? null : <p class="hint">{props.hint}</p>}
    </fieldset>
  );
}
