import type { CoreDeps } from "../deps.ts";
import type { MailMessage } from "../mail/mail-message.ts";
import type { Mailer } from "../ports.ts";
import type { RequestOrigin } from "../people/people-settings.ts";
import { requestSignUp, type SignUpInput, type SignUpResult } from "../people/sign-up.ts";
import { verifyEmail } from "../people/verify-email.ts";

const SIGN_UP_TOKEN_IN_LINK = /#token=(agq_ev_[A-Za-z0-9_-]{43})/;

/** The email-verification token (`agq_ev_...`) of a sign-up mail's link, or null when the text has none. */
export function signUpTokenIn(text: string): string | null {
  return SIGN_UP_TOKEN_IN_LINK.exec(text)?.[1] ?? null;
}

/**
 * Signs a person up as a person does, in the core: asks for the sign-up, runs its work (what the
 * edge does after the answer), takes the token from the mail it sent, verifies the email. Throws
 * unless a verification mail was sent.
 */
export async function signUpVerified(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people" | "publicBaseUrl" | "mailer">, input: SignUpInput, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<SignUpResult> {
  const sent: MailMessage[] = [];
  const mailer: Mailer = {
    send: async (message) => {
      await deps.mailer?.send(message);
      sent.push(message);
    },
  };
  const requested = await requestSignUp({ ...deps, mailer }, input, ctx);
  const outcome = await requested.work();
  const token = sent.length === 0 ? null : signUpTokenIn(sent[0]!.text);
  if (token === null) throw new Error(`signUpVerified: no verification link was mailed to ${input.email} (${outcome})`);
  return verifyEmail(deps, { token }, ctx);
}
