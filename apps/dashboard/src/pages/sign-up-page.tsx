/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { NewPasswordField } from "../components/new-password-field.tsx";
import { PageHeading } from "../components/page-heading.tsx";

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
      <PageHeading title="Create a workspace" error={props.error} />
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
        <NewPasswordField label="Password" />
        <div class="actions">
          <button type="submit">Create the workspace</button>
          <a href="/sign-in">I have an account</a>
        </div>
      </form>
    </div>
  );
}
