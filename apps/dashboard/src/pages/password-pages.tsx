/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ErrorNotice, type ShownError } from "../components/error-notice.tsx";
import { NewPasswordField } from "../components/new-password-field.tsx";
import { PageHeading } from "../components/page-heading.tsx";

/** The "forgot your password?" form: an email, answered the same whether or not it has an account. */
export function ForgotPasswordPage(props: { error?: ShownError | undefined; sent?: boolean | undefined; email?: string | undefined }) {
  return (
    <div class="narrow">
      <PageHeading title="Reset your password" error={props.error} />
      {props.sent === true ? (
        <div class="notice ok" role="status">
          If this address has an account, a link to reset its password is on its way. It works once, within one hour.
        </div>
      ) : null}
      <form class="panel stack" method="post" action="/forgot-password">
        <div>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={props.email ?? ""} />
        </div>
        <div class="actions">
          <button type="submit">Mail me a link</button>
          <a href="/sign-in">Back to sign-in</a>
        </div>
      </form>
    </div>
  );
}

/** Which mailed link a set-password page answers: a password reset, or an invitation to join a workspace. */
export type SetPasswordPurpose = "reset" | "invitation";

const SET_PASSWORD_TEXT: Record<SetPasswordPurpose, { title: string; intro: string; action: string; submit: string }> = {
  reset: { title: "Choose a new password", intro: "Every session of your account ends when the new password is set.", action: "/reset-password", submit: "Set the new password" },
  invitation: { title: "Join the workspace", intro: "Choose the password you will sign in with, together with the email address the invitation was sent to.", action: "/accept-invitation", submit: "Set my password and join" },
};

/** The page a mailed set-password link opens: the token (from the link's fragment, filled by a script, or pasted) and the new password. */
export function SetPasswordPage(props: { purpose: SetPasswordPurpose; error?: ShownError | undefined; token?: string | undefined }) {
  const text = SET_PASSWORD_TEXT[props.purpose];
  return (
    <div class="narrow">
      <h1>{text.title}</h1>
      <p>{text.intro}</p>
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <form class="panel stack" method="post" action={text.action}>
        <div>
          <label for="token">Token from the mail</label>
          <input id="token" name="token" type="text" autocomplete="off" required data-fragment-token value={props.token ?? ""} aria-describedby="token-hint" />
          <p class="hint" id="token-hint">
            Opened from the mail's link, this is filled in for you.
          </p>
        </div>
        <NewPasswordField label="New password" />
        <div class="actions">
          <button type="submit">{text.submit}</button>
        </div>
      </form>
    </div>
  );
}
