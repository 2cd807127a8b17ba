import type { CoreDeps } from "../deps.ts";
import type { RequestOrigin } from "../people/people-settings.ts";
import { requestSignUp, type SignUpInput, type SignUpResult } from "../people/sign-up.ts";
import { verifyEmail } from "../people/verify-email.ts";

const SIGN_UP_TOKEN_IN_LINK = /#token=(agq_ev_[A-Za-z0-9_-]{43})/;

/** The email-verification token (`agq_ev_...`) of a sign-up mail's link, or null when the text has none. */
export function signUpTokenIn(text: string): string | null {
  return SIGN_UP_TOKEN_IN_LINK.exec(text)?.[1] ?? null;
}

/**
 * Signs a person up as a person does, in the core: asks for the sign-up, takes the token from
 * the mail it composed, verifies the email. Throws unless a verification mail was composed.
 */
export async function signUpVerified(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people" | "publicBaseUrl" | "mailer">, input: SignUpInput, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<SignUpResult> {
  const { mail } = await requestSignUp(deps, input, ctx);
  const token = mail === null ? null : signUpTokenIn(mail.text);
  if (token === null) throw new Error(`signUpVerified: no verification link was mailed to ${input.email}`);
  return verifyEmail(deps, { token }, ctx);
}
