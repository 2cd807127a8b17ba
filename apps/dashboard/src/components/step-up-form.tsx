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
      <OneTimeCodeFields codeId="step-up-code" recoveryId="step-up-recovery" />
      <div>
        <button type="submit">Confirm it is you</button>
      </div>
    </form>
  );
}

/**
 * The second factor's fields: the six-digit code from the authenticator app (`pattern` checks
 * its form in the browser), or, behind a disclosure, a recovery code.
 */
export function OneTimeCodeFields(props: { codeId: string; recoveryId: string; pattern?: boolean }) {
  return (
    <>
      <div>
        <label for={props.codeId}>Code from your authenticator app</label>
        <input id={props.codeId} name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern={props.pattern === true ? "[0-9]{6}" : undefined} maxlength={6} />
      </div>
      <details>
        <summary>Use a recovery code instead</summary>
        <div>
          <label for={props.recoveryId}>Recovery code</label>
          <input id={props.recoveryId} name="recovery_code" type="text" autocomplete="off" />
        </div>
      </details>
    </>
  );
}
