/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ErrorNotice, type ShownError } from "../components/error-notice.tsx";

/** The values a sign-up form is shown again with after a refusal (never the password). */
export interface SignUpValues {
  email?: string | undefined;
  workspace_name?: string | undefined;
  display_name?: string | undefined;
}

/** The sign-up form: a new workspace on the free plan, with its owner. */
export function SignUpPage(props: { error?: ShownError | undefined; values: SignUpValues }) {
  return (
    <div class="narrow">
      <h1>Create a workspace</h1>
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <form class="panel stack" method="post" action="/sign-up">
        <div>
          <label for="workspace_name">Workspace name</label>
          <input id="workspace_name" name="workspace_name" type="text" required value={props.values.workspace_name ?? ""} />
        </div>
        <div>
          <label for="display_name">Your name (optional)</label>
          <input id="display_name" name="display_name" type="text" autocomplete="name" value={props.values.display_name ?? ""} />
        </div>
        <div>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={props.values.email ?? ""} />
        </div>
        <div>
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="new-password" required minlength={12} maxlength={256} aria-describedby="password-hint" />
          <p class="hint" id="password-hint">
            12 to 256 characters. Common passwords and your email's name are refused.
          </p>
        </div>
        <div class="actions">
          <button type="submit">Create the workspace</button>
          <a href="/sign-in">I have an account</a>
        </div>
      </form>
    </div>
  );
}
