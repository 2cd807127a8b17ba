/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";

/** After a sign-up: the link to prove the address is in the mail; nothing exists until it is opened. */
export function SignUpSentPage(props: { email: string }) {
  return (
    <div class="narrow">
      <h1>Check your mail</h1>
      <div class="panel stack" role="status" data-sign-up="sent">
        <p>
          We sent a link to <strong>{props.email}</strong>. Open it within 24 hours to confirm that the address is yours: your workspace is created then, and you are signed in.
        </p>
        <p class="hint">Nothing is created until you open the link, and it works once. No mail? Check the spam folder, or sign up again. If the address already has an account, the mail says so instead.</p>
      </div>
      <p>
        <a href="/sign-in">Sign in</a> instead.
      </p>
    </div>
  );
}

/**
 * The page of the mailed link (`/verify-email#token=agq_ev_...`). The token rides in the
 * fragment, which reaches no server: the page's script (an asset of this origin) copies it into
 * the form, and the person confirms. Without JavaScript, the token is pasted into the field.
 */
export function VerifyEmailPage(props: { error?: ShownError | undefined }) {
  return (
    <div class="narrow">
      <PageHeading title="Confirm your email" error={props.error} />
      <form class="panel stack" method="post" action="/verify-email">
        <p>The link you opened proves that this address is yours. Confirm to create your workspace and sign in.</p>
        <div>
          <label for="token">Code from the link</label>
          <input id="token" name="token" type="text" required data-fragment-token autocomplete="off" spellcheck={false} maxlength={200} aria-describedby="token-hint" />
          <p class="hint" id="token-hint">
            Filled in from the link. Otherwise paste what follows <code>#token=</code> in it.
          </p>
        </div>
        <div class="actions">
          <button type="submit">Confirm and sign in</button>
        </div>
      </form>
    </div>
  );
}
