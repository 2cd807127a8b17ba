import type { CoreDeps, Person, Role } from "@agentq/core";
import { signUpTokenIn } from "@agentq/core/testing";
import { readEmlMails } from "@agentq/runtime/testing";

/** A signed-in person over real HTTP: their session cookie and what sign-in or sign-up answered. */
export interface SignedInPerson {
  /** The `Cookie` request header value carrying the session (`__Host-agentq_session=...`). */
  cookie: string;
  /** The session value alone. */
  token: string;
  /** The response body (`person`, and `workspace` after sign-up). */
  body: Record<string, any>;
}

/** The value of cookie `name` among a response's Set-Cookie headers, or null (absent or cleared). */
export function cookieFrom(res: Response, name: string): string | null {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair?.indexOf("=") ?? -1;
    if (pair === undefined || eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    const value = pair.slice(eq + 1).trim();
    return value === "" ? null : value;
  }
  return null;
}

/** The session cookie's name for a server whose PUBLIC_BASE_URL is loopback or https (the tests' case). */
export const SESSION_COOKIE = "__Host-agentq_session";
/** The pending-MFA cookie's name, likewise. */
export const PENDING_MFA_COOKIE = "__Host-agentq_mfa";

/**
 * Headers of a browser-like request of a signed-in person: the session cookie and, for writes,
 * an Origin of the server itself (the origin check), plus JSON content type when there is a body.
 */
export function sessionHeaders(baseUrl: string, cookie: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Cookie: cookie, Origin: new URL(baseUrl).origin, "Content-Type": "application/json", ...extra };
}

async function expectCookie(res: Response, what: string): Promise<SignedInPerson> {
  const body = (await res.json()) as Record<string, any>;
  if (res.status >= 300) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(body)}`);
  const token = cookieFrom(res, SESSION_COOKIE);
  if (token === null) throw new Error(`${what} set no session cookie`);
  return { cookie: `${SESSION_COOKIE}=${token}`, token, body };
}

/**
 * The origin settings of a test server that trusts X-Forwarded-For from loopback peers, so a test
 * may speak from client addresses of its own (`freshClientAddress`).
 */
export const TRUSTED_LOOPBACK = { trustedProxies: ["127.0.0.1/32", "::1/128"], countryHeader: null } as const;

let clientAddressSeq = 0;

/**
 * An X-Forwarded-For header naming a client address no other call of this test process used
 * (2001:db8::/32, the documentation prefix): honoured by a server that trusts the loopback proxy
 * (`TRUSTED_LOOPBACK`), so each sign-up counts against its own per-address limits (DESIGN §2c).
 */
export function freshClientAddress(): Record<string, string> {
  clientAddressSeq += 1;
  return { "X-Forwarded-For": `2001:db8:5::${clientAddressSeq.toString(16)}` };
}

/**
 * Where a test reads the mails its server sent: an SMTP receiver (`startSmtpReceiver`) or an
 * InMemoryMailer (both answer `to(address)`), or the .eml folder of a server without SMTP_URL
 * (`<AGENTQ_DATA_DIR>/mail`).
 */
export type TestInbox = { to(address: string): readonly { text: string }[] } | { emlDir: string };

/** The mails `inbox` holds for `address`, oldest first. */
export async function mailsTo(inbox: TestInbox, address: string): Promise<{ text: string }[]> {
  if ("emlDir" in inbox) return (await readEmlMails(inbox.emlDir)).filter((m) => m.to === address);
  return [...inbox.to(address)];
}

/** Waits (5 s at most) until `inbox` holds more than `seen` mails for `address`; the newest. */
export async function nextMailTo(inbox: TestInbox, address: string, seen: number): Promise<{ text: string }> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const mails = await mailsTo(inbox, address);
    if (mails.length > seen) return mails[mails.length - 1]!;
    if (Date.now() > deadline) throw new Error(`no new mail to ${address} within 5 s (had ${seen})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Signs a person up over HTTP as a person does (DESIGN §2c): POST /v1/auth/sign-up (202), the
 * mailed link's token read from `inbox`, POST /v1/auth/verify-email with it; throws unless that
 * answers 201 with a session cookie. Both requests carry `headers`, by default an
 * X-Forwarded-For of their own (`freshClientAddress`), so that the many sign-ups of one test
 * file stay under the per-address limits of sign-up and verify-email when the server trusts the
 * loopback proxy (`TRUSTED_LOOPBACK`; serveComposed does).
 */
export async function signUpPerson(baseUrl: string, p: { email: string; password: string; workspaceName: string; displayName?: string; inbox: TestInbox }, headers: Record<string, string> = freshClientAddress()): Promise<SignedInPerson> {
  const address = p.email.trim().toLowerCase();
  const seen = (await mailsTo(p.inbox, address)).length;
  const asked = await fetch(`${baseUrl}/v1/auth/sign-up`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ email: p.email, password: p.password, workspace_name: p.workspaceName, ...(p.displayName === undefined ? {} : { display_name: p.displayName }) }),
  });
  if (asked.status !== 202) throw new Error(`sign-up answered ${asked.status}: ${await asked.text()}`);
  const mail = await nextMailTo(p.inbox, address, seen);
  const token = signUpTokenIn(mail.text);
  if (token === null) throw new Error(`the mail to ${address} carries no verification link (is the address registered?)`);
  const res = await fetch(`${baseUrl}/v1/auth/verify-email`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify({ token }) });
  return expectCookie(res, "verify-email");
}

/** POST /v1/auth/sign-in over HTTP for a person without MFA; throws unless 200 with a session cookie. */
export async function signInPerson(baseUrl: string, p: { email: string; password: string }): Promise<SignedInPerson> {
  const res = await fetch(`${baseUrl}/v1/auth/sign-in`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(p) });
  return expectCookie(res, "sign-in");
}

/**
 * Adds a person with `role` and `password` to an existing workspace straight through the store
 * (for tests, before /v1/people exists), hashing the password with the deps' hasher.
 */
export async function seedPerson(deps: CoreDeps, p: { workspaceId: string; email: string; role: Role; password: string; displayName?: string }): Promise<Person> {
  if (deps.people === undefined) throw new Error("seedPerson: the deps have no people configuration");
  const person: Person = {
    id: deps.ids.next(),
    workspaceId: p.workspaceId,
    email: p.email.toLowerCase(),
    displayName: p.displayName ?? null,
    role: p.role,
    passwordHash: await deps.people.passwords.hash(p.password),
    mfaEnabledAt: null,
    createdAt: deps.clock.now(),
  };
  const r = await deps.stores.people.insert({ person });
  if (r.kind !== "created") throw new Error(`seedPerson: ${p.email} is taken`);
  return person;
}
