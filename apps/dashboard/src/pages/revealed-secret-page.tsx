/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { PageHeading } from "../components/page-heading.tsx";
import type { CredentialWire } from "../wire.ts";

/**
 * A secret shown once (a credential's token, a webhook's signing key): the value to copy (a copy
 * button when JavaScript runs, selectable text when not), what it belongs to, and the warning that
 * it will not be shown again. The page is `no-store` like every dashboard page.
 */
export function SecretReveal(props: { label: string; value: string; id: string }) {
  return (
    <div class="panel secret">
      <p>
        <strong>{props.label}</strong> This is the only time it is shown: copy it now.
      </p>
      <pre id={props.id} data-secret="">
        {props.value}
      </pre>
      <div class="actions">
        <button type="button" class="js-only secondary" data-copy-from={props.id}>
          Copy
        </button>
        <span data-copy-status="" role="status"></span>
      </div>
    </div>
  );
}

/** The page after issuing or rotating a credential: the token once, and the MCP configuration when asked for. */
export function IssuedCredentialPage(props: { credential: CredentialWire; token: string; mcpConfig: unknown; accountName: string; rotatedFrom?: string | undefined }) {
  return (
    <>
      <PageHeading title={props.rotatedFrom === undefined ? "Credential issued" : "Credential rotated"} back={{ href: "/credentials", label: "Credentials" }} />
      <p>
        <strong>{props.credential.name}</strong> for <strong>{props.accountName}</strong> ({props.credential.tier}: {props.credential.scopes.join(", ")}).
        {props.rotatedFrom === undefined ? null : " The old credential keeps working until its overlap ends."}
      </p>
      <SecretReveal label="The token." value={props.token} id="issued-token" />
      {props.mcpConfig === undefined || props.mcpConfig === null ? null : (
        <>
          <h2>MCP client configuration</h2>
          <p>Paste it into the MCP client's configuration; it carries the token.</p>
          <SecretReveal label="The configuration." value={JSON.stringify(props.mcpConfig, null, 2)} id="mcp-config" />
        </>
      )}
      <p>
        <a href="/credentials">Done</a>
      </p>
    </>
  );
}
