import { requestPasswordReset, requestSignUp, type CoreDeps, type RequestOrigin, type SignUpInput } from "@agentq/core";
import type { AfterAnswerWork } from "./after-answer-work.ts";

/** What the anonymous requests that answer before their work need (REST and the dashboard alike). */
export interface AnswerFirstDeps {
  core: CoreDeps;
  /** Where the work runs after the answer (the process's one, so that stopping waits for it). */
  afterAnswer: AfterAnswerWork;
}

/** Where a request came from and its id. */
interface AnswerFirstContext {
  origin: RequestOrigin;
  requestId: string;
}

/**
 * A password-reset request, as POST /v1/auth/password-reset and the dashboard's /forgot-password
 * both take it (DESIGN §2c): the checks the answer needs (`requestPasswordReset`: the client
 * address's limit, the email's form), then the lookup, token, mail and audit row handed to
 * `afterAnswer`. The caller answers as soon as this resolves, the same whatever the email.
 * @throws what `requestPasswordReset` throws: its refusal is the answer.
 */
export async function acceptPasswordReset(deps: AnswerFirstDeps, input: { email: string }, ctx: AnswerFirstContext): Promise<void> {
  const requested = await requestPasswordReset(deps.core, input, ctx);
  deps.afterAnswer.run({ what: "password_reset", requestId: ctx.requestId }, requested.work);
}

/**
 * A sign-up request, as POST /v1/auth/sign-up and the dashboard's /sign-up both take it (DESIGN
 * §2c): the checks the answer needs (`requestSignUp`: settings, the client address's limit, the
 * fields, the password hashed), then the lookup, the pending sign-up or the registered address's
 * reset link, and the mail handed to `afterAnswer`. The caller answers as soon as this resolves,
 * the same whatever the address.
 * @throws what `requestSignUp` throws: its refusal is the answer.
 */
export async function acceptSignUp(deps: AnswerFirstDeps, input: SignUpInput, ctx: AnswerFirstContext): Promise<void> {
  const requested = await requestSignUp(deps.core, input, ctx);
  deps.afterAnswer.run({ what: "sign_up", requestId: ctx.requestId }, requested.work);
}
