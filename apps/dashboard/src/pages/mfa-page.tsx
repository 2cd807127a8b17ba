/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ErrorNotice, type ShownError } from "../components/error-notice.tsx";

/** The second step of a sign-in with MFA: a code from the authenticator app, or a recovery code. */
export function MfaPage(props: { returnTo: string; error?: ShownError | undefined }) {
  return (
    <div class="narrow">
      <h1>Two-step verification</h1>
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <form class="panel stack" method="post" action="/sign-in/mfa">
        <input type="hidden" name="return_to" value={props.returnTo} />
        <div>
          <label for="code">Code from your authenticator app</label>
          <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} />
        </div>
        <details>
          <summary>Use a recovery code instead</summary>
          <div>
            <label for="recovery_code">Recovery code</label>
            <input id="recovery_code" name="recovery_code" type="text" autocomplete="off" />
          </div>
        </details>
        <div class="actions">
          <button type="submit">Verify</button>
          <a href="/sign-in">Start over</a>
        </div>
      </form>
    </div>
  );
}
