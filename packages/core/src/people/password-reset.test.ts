import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { InMemoryMailer } from "../testing/in-memory-mailer.ts";
import { testPasswordHasher } from "../testing/test-password-hasher.ts";
import { testSecretSealer } from "../testing/test-secret-sealer.ts";
import { requestPasswordReset } from "./password-reset.ts";
import { DEFAULT_PEOPLE_SETTINGS } from "./people-settings.ts";
import { signUpVerified } from "../testing/sign-up-fixtures.ts";

// Issue 25: a reset request decides only what the answer needs (the address's limit, the email's
// form); the lookup, the token, the mail and the audit row are its work, done after the answer.
const PASSWORD = "a long and quiet river";
const ORIGIN = { clientAddress: "192.0.2.1", country: null };

async function world() {
  const w = createInMemoryDeps();
  const mailer = new InMemoryMailer();
  w.deps.people = { passwords: testPasswordHasher(), settings: DEFAULT_PEOPLE_SETTINGS, sealer: testSecretSealer() };
  w.deps.mailer = mailer;
  const up = await signUpVerified(w.deps, { email: "ada@example.test", password: PASSWORD, workspace_name: "Acme" }, { origin: { clientAddress: "192.0.2.200", country: null }, requestId: null });
  const resetRows = async () => (await w.deps.stores.audit.list({ workspaceId: up.workspace.id, activity: "person.password_reset_requested", messageId: null, includeOperatorSignificant: true, after: null, limit: 50 })).length;
  return { w, mailer, up, resetRows };
}

describe("password reset request (in memory)", () => {
  it("answers without looking the email up: the request never reads people", async () => {
    const { w } = await world();
    w.deps.stores.people.findByEmail = () => Promise.reject(new Error("read before the answer"));
    const requested = await requestPasswordReset(w.deps, { email: "ada@example.test" }, { origin: ORIGIN, requestId: null });
    await expect(requested.work()).rejects.toThrow("read before the answer");
  });

  it("mails, then audits; three mails an hour per email, then nothing at all (no mail, no row)", async () => {
    const { w, mailer, resetRows } = await world();
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) outcomes.push(await (await requestPasswordReset(w.deps, { email: "ADA@example.test" }, { origin: { clientAddress: `192.0.2.${10 + i}`, country: null }, requestId: null })).work());
    expect(outcomes).toEqual(["mailed", "mailed", "mailed", "too_many_for_email", "too_many_for_email"]);
    // (The first mail to the address was its sign-up's verification link.)
    expect(mailer.to("ada@example.test").filter((m) => m.text.includes("/reset-password#token=agq_pr_"))).toHaveLength(3);
    expect(await resetRows()).toBe(3);
    expect(await (await requestPasswordReset(w.deps, { email: "nobody@example.test" }, { origin: ORIGIN, requestId: null })).work()).toBe("no_account");
    w.clock.advance(60 * 60_000);
    expect(await (await requestPasswordReset(w.deps, { email: "ada@example.test" }, { origin: ORIGIN, requestId: null })).work()).toBe("mailed");
  });

  it("when the mail cannot be handed over: the work rejects, the token is spent, and no audit row is written", async () => {
    const { w, mailer, up, resetRows } = await world();
    mailer.failing = true;
    const requested = await requestPasswordReset(w.deps, { email: "ada@example.test" }, { origin: ORIGIN, requestId: null });
    const failure = await requested.work().catch((e: unknown) => e);
    expect(isDomainError(failure) && failure.code).toBe("SVC_SERVICE_UNAVAILABLE");
    expect(await resetRows()).toBe(0);
    const tokens = w.tables.personTokens.tokens.values().filter((t) => t.personId === up.person.id && t.purpose === "password_reset");
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.usedAt).not.toBeNull();
  });

  it("refuses the 31st request from one address with 429 before anything else, and a malformed email with 400", async () => {
    const { w } = await world();
    for (let i = 0; i < 30; i++) await requestPasswordReset(w.deps, { email: `x${i}@example.test` }, { origin: ORIGIN, requestId: null });
    const refused = await requestPasswordReset(w.deps, { email: "not an address" }, { origin: ORIGIN, requestId: null }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "password_reset", limit: 30, window: "PT1H" } });
    const malformed = await requestPasswordReset(w.deps, { email: "not an address" }, { origin: { clientAddress: "192.0.2.99", country: null }, requestId: null }).catch((e: unknown) => e);
    expect(malformed).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "email" } });
  });
});
