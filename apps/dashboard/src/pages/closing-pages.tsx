/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { LocalTime } from "../components/local-time.tsx";
import { stepUpLocation } from "../step-up-redirect.ts";

/** The export's confirmation: what the document holds, then the download (GET /v1/me/export). */
export function ExportPage(props: { role: string }) {
  return (
    <section class="narrow-wide">
      <PageHeading title="Export my data" back={{ href: "/settings", label: "Settings" }} />
      <p>One JSON document with you and everything of the workspace: AI accounts, credentials (never their tokens), messages with their payloads, webhooks (never their signing secrets), policies, the agents' session-state records and the audit chain{props.role === "viewer" ? "" : ", and the people of the workspace"}.</p>
      <p>The export is written to the audit log. It can be large; it downloads as a file.</p>
      <p>
        {/* `download` keeps htmx from boosting the link: the browser saves the answer as a file. */}
        <a class="button" href="/v1/me/export" download="">
          Download the export
        </a>
      </p>
    </section>
  );
}

/** A fresh step-up is needed before the form: where to get it. */
function StepUpFirst(props: { returnTo: string; what: string }) {
  return (
    <div class="panel">
      <p>{props.what} needs a fresh confirmation with a code from your authenticator app.</p>
      <p>
        <a class="button" href={stepUpLocation(props.returnTo)}>
          Confirm it is you
        </a>
      </p>
    </div>
  );
}

/**
 * The form of an action that cannot be undone, confirmed by typing `expected` (shown under the
 * field). An `unboosted` form is posted without htmx (its answer signs the person out).
 */
function ConfirmByTyping(props: { action: string; id: string; type: "text" | "email"; label: string; expected: string; button: string; unboosted?: boolean }) {
  return (
    <form class="panel stack" method="post" action={props.action} hx-boost={props.unboosted === true ? "false" : undefined}>
      <div>
        <label for={props.id}>{props.label}</label>
        <input id={props.id} name="confirm" type={props.type} autocomplete="off" required />
        <p class="hint">{props.expected}</p>
      </div>
      <div>
        <button type="submit" class="danger">
          {props.button}
        </button>
      </div>
    </form>
  );
}

/**
 * Closing the workspace, confirmed by typing its name: every AI account and credential revoked at
 * once, payloads deleted 30 days later; only the export and erasing yourself keep working.
 */
export function CloseWorkspacePage(props: { workspaceName: string; role: string; steppedUp: boolean; error?: ShownError | undefined }) {
  return (
    <section class="narrow-wide">
      <PageHeading title="Close the workspace" back={{ href: "/settings", label: "Settings" }} error={props.error} />
      <ul>
        <li>Every AI account and every credential of “{props.workspaceName}” is revoked at once; connected MCP clients stop working.</li>
        <li>Message payloads are deleted 30 days later. The audit log stays.</li>
        <li>Until then you can still sign in to export your data or erase yourself; nothing else works. It cannot be undone.</li>
      </ul>
      {props.role !== "owner" ? (
        <p class="panel">Only an owner of the workspace may close it.</p>
      ) : !props.steppedUp ? (
        <StepUpFirst returnTo="/settings/close" what="Closing the workspace" />
      ) : (
        <ConfirmByTyping action="/settings/close" id="close-confirm" type="text" label="Type the workspace's name to confirm" expected={props.workspaceName} button="Close the workspace" />
      )}
    </section>
  );
}

/** Erasing yourself, confirmed by typing your email address. */
export function ErasePage(props: { email: string; lastOwnerWarning: boolean; steppedUp: boolean; error?: ShownError | undefined }) {
  return (
    <section class="narrow-wide">
      <PageHeading title="Erase me" back={{ href: "/settings", label: "Settings" }} error={props.error} />
      <ul>
        <li>Your email address, name, password and two-step verification are deleted, with every session: you are signed out.</li>
        <li>The audit log keeps what you did, under an id that no longer names you.</li>
        {props.lastOwnerWarning ? <li>If you are the workspace's last owner, the workspace is frozen and its AI accounts and credentials are revoked.</li> : null}
        <li>It cannot be undone. Export your data first if you want a copy.</li>
      </ul>
      {!props.steppedUp ? (
        <StepUpFirst returnTo="/settings/erase" what="Erasing yourself" />
      ) : (
        <ConfirmByTyping action="/settings/erase" id="erase-confirm" type="email" label="Type your email address to confirm" expected={props.email} button="Erase me" unboosted />
      )}
    </section>
  );
}

/** The signed-out answer of an erasure. */
export function ErasedPage(props: { erasedAt: string; workspaceState: string }) {
  return (
    <section class="narrow">
      <h1>You are erased</h1>
      <p data-erased="">
        Your personal data was erased at <LocalTime at={props.erasedAt} /> and you are signed out.
      </p>
      {props.workspaceState === "frozen" ? <p>You were the workspace's last owner: it is frozen and its AI accounts are revoked.</p> : null}
      <p>
        <a href="/sign-in">Sign-in page</a>
      </p>
    </section>
  );
}
