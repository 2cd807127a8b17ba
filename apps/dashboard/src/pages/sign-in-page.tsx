/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ErrorNotice, type ShownError } from "../components/error-notice.tsx";

/** The sign-in form (email and password), the identity provider's button when OIDC is configured. */
export function SignInPage(props: { error?: ShownError | undefined; email?: string | undefined; returnTo: string; oidcLabel: string | null; notice?: string | undefined }) {
  return (
    <div class="narrow">
      <h1>Sign in</h1>
      {props.notice === undefined ? null : (
        <div class="notice ok" role="status">
          {props.notice}
        </div>
      )}
      {props.error === undefined ? null : <ErrorNotice error={props.error} />}
      <form class="panel stack" method="post" action="/sign-in">
        <input type="hidden" name="return_to" value={props.returnTo} />
        <div>
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={props.email ?? ""} />
        </div>
        <div>
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <div class="actions">
          <button type="submit">Sign in</button>
          <a href="/forgot-password">Forgot your password?</a>
          <a href="/sign-up">Create a workspace</a>
        </div>
      </form>
      {props.oidcLabel === null ? null : (
        <p class="panel">
          {/* A link, not a form: the start answers with a redirect to the identity provider, which form-action 'self' would block. */}
          <a class="button secondary" href={`/v1/auth/oidc/start?${new URLSearchParams({ return_to: props.returnTo }).toString()}`}>
            Sign in with {props.oidcLabel}
          </a>
        </p>
      )}
    </div>
  );
}
