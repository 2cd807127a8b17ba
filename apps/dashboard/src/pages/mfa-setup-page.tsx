/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { encodeQR } from "@paulmillr/qr";
import type { ShownError } from "../components/error-notice.tsx";
import { PageHeading } from "../components/page-heading.tsx";
import { SecretReveal } from "./revealed-secret-page.tsx";

/** The otpauth:// URI as a QR code: an SVG image in a data: URL (the CSP allows data: images, no inline markup). */
export function QrCode(props: { text: string; label: string }) {
  const svg = encodeQR(props.text, "svg", { ecc: "medium", border: 2 });
  return <img class="qr" src={`data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`} alt={props.label} width={224} height={224} data-qr="" />;
}

/** Step two of enrolment: scan the code (or type the secret), then confirm with a code the app shows. */
export function MfaSetupPage(props: { secret: string; otpauthUri: string; error?: ShownError | undefined }) {
  return (
    <>
      <PageHeading title="Set up two-step verification" back={{ href: "/settings", label: "Settings" }} error={props.error} />
      <ol>
        <li>Scan this code with an authenticator app (or type the secret below into it).</li>
        <li>Enter the six-digit code the app shows to turn two-step verification on.</li>
      </ol>
      <QrCode text={props.otpauthUri} label="QR code of the authenticator secret" />
      <SecretReveal label="The secret." value={props.secret} id="totp-secret" />
      {/* Not boosted: the answer is a signed-out page (this session ends), which has no frame to swap in. */}
      <form class="panel inline-form" method="post" action="/settings/mfa/confirm" hx-boost="false">
        <div>
          <label for="confirm-code">Code from the app</label>
          <input id="confirm-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength={6} required />
        </div>
        <button type="submit">Turn it on</button>
      </form>
      <p class="hint">Turning it on signs you out everywhere: sign in again with your password and a code.</p>
    </>
  );
}

/** After confirming: the ten recovery codes, shown once; the session has ended. */
export function RecoveryCodesPage(props: { codes: string[] }) {
  return (
    <div class="narrow-wide">
      <h1>Two-step verification is on</h1>
      <p>Keep these recovery codes somewhere safe. Each works once, in place of a code from the app.</p>
      <SecretReveal label="Your recovery codes." value={props.codes.join("\n")} id="recovery-codes" />
      <p>Every session of yours was signed out, this one included.</p>
      <p>
        <a class="button" href="/sign-in">
          Sign in again
        </a>
      </p>
    </div>
  );
}

/** New recovery codes, shown once; the old ones no longer work. */
export function NewRecoveryCodesPage(props: { codes: string[] }) {
  return (
    <>
      <PageHeading title="New recovery codes" back={{ href: "/settings", label: "Settings" }} />
      <p>Keep these somewhere safe. Each works once, in place of a code from the app; the codes you had before no longer work.</p>
      <SecretReveal label="Your new recovery codes." value={props.codes.join("\n")} id="recovery-codes" />
    </>
  );
}
