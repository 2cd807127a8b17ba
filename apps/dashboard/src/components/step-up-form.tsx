/** @jsxRuntime automatic @jsxImportSource hono/jsx */
/**
 * The step-up form (a code from the authenticator app, or a recovery code): posts to
 * /settings/step-up, which confirms the person for five minutes and then goes back to
 * `returnTo` when it is given (the page whose action asked for the step-up).
 */
export function StepUpForm(props: { returnTo?: string | undefined }) {
  return (
    <form class="stack" method="post" action="/settings/step-up">
      {props.returnTo === undefined ? null : <input type="hidden" name="return_to" value={props.returnTo} />}
      <div>
        <label for="step-up-code">Code from your authenticator app</label>
        <input id="step-up-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength={6} />
      </div>
      <details>
        <summary>Use a recovery code instead</summary>
        <div>
          <label for="step-up-recovery">Recovery code</label>
          <input id="step-up-recovery" name="recovery_code" type="text" autocomplete="off" />
        </div>
      </details>
      <div>
        <button type="submit">Confirm it is you</button>
      </div>
    </form>
  );
}
