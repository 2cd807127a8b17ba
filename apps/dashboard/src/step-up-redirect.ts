import { isDomainError } from "@agentq/core";

/**
 * The address of the step-up page that comes back to `returnTo` (a path of this site) once the
 * person has confirmed with a code.
 */
export function stepUpLocation(returnTo: string): string {
  return `/settings/step-up?${new URLSearchParams({ return_to: returnTo }).toString()}`;
}

/** True when `err` is the executor's or a use case's 401 SVC_STEP_UP_REQUIRED. */
export function needsStepUp(err: unknown): boolean {
  return isDomainError(err) && err.code === "SVC_STEP_UP_REQUIRED";
}

/** True when the session's step-up is still fresh at `now`. */
export function stepUpFresh(stepUpUntil: Date | null, now: Date): boolean {
  return stepUpUntil !== null && stepUpUntil.getTime() > now.getTime();
}
