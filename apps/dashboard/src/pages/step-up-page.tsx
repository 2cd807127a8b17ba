/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { StepUpForm } from "../components/step-up-form.tsx";

/**
 * The step-up on its own page, where an action that needs a fresh confirmation (401
 * SVC_STEP_UP_REQUIRED) sends the person: a code, then back to the page of the action. Without
 * two-step verification there is nothing to confirm with: the page says to set it up first.
 */
export function StepUpPage(props: { returnTo: string; mfaEnabled: boolean; error?: ShownError | undefined }) {
  return (
    <section class="narrow">
      <PageHeading title="Confirm it is you" error={props.error} />
      {props.mfaEnabled ? (
        <>
          <p>This action needs a fresh confirmation with a code. It lasts five minutes; then you go back where you were.</p>
          <StepUpForm returnTo={props.returnTo} />
        </>
      ) : (
        <>
          <p data-mfa-needed="">This action needs a confirmation with a code from an authenticator app, and two-step verification is off for you.</p>
          <p>
            <a href="/settings">Set up two-step verification in Settings</a>, then come back.
          </p>
        </>
      )}
      <p>
        <a href={props.returnTo}>Back</a>
      </p>
    </section>
  );
}
