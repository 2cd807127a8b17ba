import type { Page } from "playwright-core";
import * as OTPAuth from "otpauth";
import { sessionHeaders, signUpPerson } from "../testing/people.ts";
import type { ServedService } from "../testing/serve-composed.ts";

/** A person made for a dashboard test: their workspace, and their authenticator when MFA is on. */
export interface DashboardPerson {
  email: string;
  password: string;
  workspaceId: string;
  /** The session cookie of the sign-up (ended when MFA was turned on). */
  cookie: string;
  totp: OTPAuth.TOTP | null;
  recoveryCodes: string[];
  /** The id of the AI account asked for with `aiAccount`, else null. */
  aiAccountId: string | null;
}

/**
 * Signs a person up over REST through the mailed link (read from the served service's SMTP
 * receiver: a new workspace, them its owner) and, when `mfa` is set, turns on
 * two-step verification with a real TOTP code (which ends the sign-up's session); with
 * `aiAccount`, first creates an AI account of that name with the sign-up's session.
 */
export async function signUpForDashboard(served: Pick<ServedService, "baseUrl" | "smtp">, p: { email: string; password: string; workspaceName: string; mfa?: boolean; aiAccount?: string }): Promise<DashboardPerson> {
  const baseUrl = served.baseUrl;
  const signedUp = await signUpPerson(baseUrl, { email: p.email, password: p.password, workspaceName: p.workspaceName, inbox: served.smtp });
  const post = (path: string, body?: unknown) => fetch(`${baseUrl}${path}`, { method: "POST", headers: sessionHeaders(baseUrl, signedUp.cookie), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  let aiAccountId: string | null = null;
  if (p.aiAccount !== undefined) {
    const created = await post("/v1/ai-accounts", { friendly_name: p.aiAccount });
    if (created.status !== 201) throw new Error(`creating the AI account answered ${created.status}`);
    aiAccountId = ((await created.json()) as { id: string }).id;
  }
  const person: DashboardPerson = { email: p.email, password: p.password, workspaceId: (signedUp.body.workspace as { id: string }).id, cookie: signedUp.cookie, totp: null, recoveryCodes: [], aiAccountId };
  if (p.mfa !== true) return person;
  const enrolled = (await (await post("/v1/auth/mfa/totp/enroll")).json()) as { secret: string };
  const totp = authenticatorOf(enrolled.secret);
  const confirmed = await post("/v1/auth/mfa/totp/confirm", { code: totp.generate() });
  if (confirmed.status !== 200) throw new Error(`MFA confirm answered ${confirmed.status}`);
  return { ...person, totp, recoveryCodes: ((await confirmed.json()) as { recovery_codes: string[] }).recovery_codes };
}

/**
 * Signs `person` in on the dashboard's sign-in page; with MFA, completes the second step with the
 * code of the next time step (the current one went to the enrolment: one use per step). A
 * sign-in completed with MFA counts as a step-up for five minutes. Only the address, the password
 * and the authenticator are read (a person bootstrapped by the command has no more).
 */
export async function signInOnPage(page: Page, baseUrl: string, person: Pick<DashboardPerson, "email" | "password" | "totp"> & Partial<DashboardPerson>): Promise<void> {
  await page.goto(`${baseUrl}/sign-in`);
  await page.getByLabel("Email").fill(person.email);
  await page.getByLabel("Password").fill(person.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  if (person.totp !== null) {
    await page.waitForURL(/\/sign-in\/mfa/);
    await page.getByLabel("Code from your authenticator app").fill(person.totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole("button", { name: "Verify" }).click();
  }
  await page.waitForURL(`${baseUrl}/`);
}

/** The authenticator of a base32 TOTP secret, as an app that scanned it computes codes. */
export function authenticatorOf(secret: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 });
}

/** A six-digit code the authenticator does not show now (a wrong code). */
export function wrongCodeFor(totp: OTPAuth.TOTP): string {
  return totp.generate() === "000000" ? "111111" : "000000";
}

/** On the Settings page: starts the two-step set-up and reads the secret it shows (with its authenticator). */
export async function startMfaSetUpOnPage(page: Page, baseUrl: string): Promise<{ secret: string; totp: OTPAuth.TOTP }> {
  await page.goto(`${baseUrl}/settings`);
  await page.getByRole("button", { name: "Set up two-step verification" }).click();
  await page.locator("#totp-secret").waitFor();
  const secret = ((await page.locator("#totp-secret").textContent()) ?? "").trim();
  return { secret, totp: authenticatorOf(secret) };
}

/** On the set-up page: types `code` and turns two-step verification on. */
export async function submitMfaSetUpCode(page: Page, code: string): Promise<void> {
  await page.getByLabel("Code from the app").fill(code);
  await page.getByRole("button", { name: "Turn it on" }).click();
}
