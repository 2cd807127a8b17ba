/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { OneTimeCodeFields } from "../components/step-up-form.tsx";

/** The second step of a sign-in with MFA: a code from the authenticator app, or a recovery code. */
export function MfaPage(props: { returnTo: string; error?: ShownError | undefined }) {
  return (
    <div class="narrow">
      <PageHeading title="Two-step verification" error={props.error} />
      <form class="panel stack" method="post" action="/sign-in/mfa">
        <input type="hidden" name="return_to" value={props.returnTo} />
        <OneTimeCodeFields codeId="code" recoveryId="recovery_code" pattern />
        <div class="actions">
          <button type="submit">Verify</button>
          <a href="/sign-in">Start over</a>
        </div>
      </form>
    </div>
  );
}
