import { DAY_MS, type Clock } from "@agentq/core";
import { testDatabaseUrl } from "@agentq/postgres/testing";
import { listenHttp, type HttpListener } from "@agentq/http";
import { Secret, TOTP } from "otpauth";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger, loadSecrets, createSmtpMailer } from "@agentq/runtime";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { bootstrapWorkspace, runPnpm, serverEnv } from "./testing/spawn-server.ts";
import { startSmtpReceiver, type SmtpReceiver } from "@agentq/runtime/testing";

/** The system clock moved forward by `offsetMs` (the test moves it past the restoration deadline). */
class OffsetClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}

// Issue 19, Done when: a notice submitted without a credential over real HTTP is reviewed and
// decided by the operator with `pnpm admin notices` (processes, as typed), the named message then
// answers 451, the owner counters, and the restoration job lifts the measure once the clock
// passes the deadline; the public status shows only state and dates throughout.
describe("notices end to end: public intake, operator commands, 451, counter-notice, restoration at the deadline", () => {
  let db: ScratchDatabase;
  let smtp: SmtpReceiver;
  let env: NodeJS.ProcessEnv;
  let sql: postgres.Sql;
  let service: ComposedService;
  let background: { stop(): Promise<void> };
  let server: HttpListener;
  let baseUrl: string;
  const clock = new OffsetClock();
  let workspaceId: string;
  let adminToken: string;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    // Mail goes to a real SMTP server on 127.0.0.1, from the server and from the operator's commands.
    smtp = await startSmtpReceiver();
    // The operator runs with the server's environment: the same PUBLIC_BASE_URL resolves URLs of our items.
    env = serverEnv(db.url, { PUBLIC_BASE_URL: "http://agentq.test", SMTP_URL: smtp.url });
    // The bootstrap command migrates the database and makes the workspace, as a user does.
    ({ workspace_id: workspaceId, token: adminToken } = await bootstrapWorkspace(env, { workspace: "noticed", email: "owner@noticed.test" }));
    sql = postgres(db.url, { max: 5, onnotice: () => undefined });
    service = composeService({
      sql,
      secrets: loadSecrets({ secretKey: env.SVC_SECRET_KEY ?? null, dataDir: env.AGENTQ_DATA_DIR ?? "" }).secrets,
      publicBaseUrl: "http://agentq.test",
      logger: createLogger("silent"),
      clock,
      mailer: createSmtpMailer({ url: smtp.url, from: "agentq <no-reply@agentq.test>" }),
      noticeAgent: { name: "Notices Desk", email: "notices@agentq.test" },
      maintenance: { sealAuditMs: 200, expireMessagesMs: 5_000, purgeIdempotencyMs: 60_000, restoreNoticesMs: 100 },
    });
    background = service.startBackground();
    server = await listenHttp((request, bindings) => service.fetch(request, bindings), { hostname: "127.0.0.1", port: 0 });
    baseUrl = `http://127.0.0.1:${server.address.port}`;
  }, 120_000);

  afterAll(async () => {
    await server.close();
    await background.stop();
    await service.close();
    await sql.end({ timeout: 5 });
    await db.drop();
    await smtp.close();
  });

  const call = async (method: string, path: string, p: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(p.token === undefined ? {} : { Authorization: `Bearer ${p.token}` }), ...(p.body === undefined ? {} : { "Content-Type": "application/json" }), ...p.headers },
      ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> & { error?: { code: string; details?: Record<string, unknown> } } };
  };
  const admin = async (...args: string[]) => {
    const r = await runPnpm(["-s", "admin", "notices", ...args], env);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  };
  const agent = async (name: string, scopes: string[]) => {
    const account = await call("POST", "/v1/ai-accounts", { token: adminToken, body: { friendly_name: name } });
    const credential = await call("POST", "/v1/credentials", { token: adminToken, body: { ai_account_id: account.body.id, tier: "operational", scopes, name: `${name} key` }, headers: { "Idempotency-Key": `issue-${name}` } });
    expect(credential.status, JSON.stringify(credential.body)).toBe(201);
    return credential.body.token as string;
  };

  it("runs from intake to restoration", async () => {
    const alice = await agent("alice", ["send"]);
    const bob = await agent("bob", ["get_pending", "ack"]);
    const sent = await call("POST", "/v1/messages/send", { token: alice, body: { envelope: { recipient: { friendly_name: "bob" }, template: "directive" }, payload: { directive_kind: "task", summary: "chapter 3", instructions: "the whole chapter" } }, headers: { "Idempotency-Key": "send-1" } });
    expect(sent.status).toBe(201);
    const messageId = sent.body.message_id as string;

    // The intake describes itself, with the designated agent.
    const intake = await call("GET", "/v1/notices/intake");
    expect(intake.status).toBe(200);
    expect(intake.body).toMatchObject({ kinds: { dsa: { schema: expect.any(Object) }, dmca: { schema: expect.any(Object) } }, designated_agent: { name: "Notices Desk" } });

    // Submitted without a credential.
    const submitted = await call("POST", "/v1/notices", {
      body: {
        kind: "dmca",
        signature: "/Carla Claimant/",
        copyrighted_work: "The novel 'Queues of the North', chapter 3.",
        locations: [{ type: "url", url: `http://agentq.test/v1/messages/${messageId}` }],
        notifier: { name: "Carla Claimant", email: "carla@example.com" },
        good_faith_statement: true,
        accuracy_statement: true,
      },
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const noticeId = (submitted.body.notice as { id: string }).id;
    const statusToken = submitted.body.status_token as string;
    const publicKeys = ["id", "kind", "received_at", "state", "updated_at"];
    const publicView = async () => {
      const r = await call("GET", `/v1/notices/${noticeId}`);
      expect(r.status).toBe(200);
      expect(Object.keys(r.body).sort()).toEqual(publicKeys);
      return r.body;
    };
    expect((await publicView()).state).toBe("received");
    // The receipt reaches the notifier.
    await smtp.waitFor({ atLeast: 1, timeoutMs: 10_000 });
    expect(smtp.to("carla@example.com")[0]?.subject).toContain(noticeId);
    // A wrong token and an unknown id: the same 404.
    const wrong = await call("GET", `/v1/notices/${noticeId}`, { headers: { "Notice-Token": `${statusToken.slice(0, -2)}xx` } });
    const unknown = await call("GET", "/v1/notices/01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect([wrong.status, unknown.status]).toEqual([404, 404]);
    expect(wrong.body.error).toEqual(unknown.body.error);

    // The operator reviews and decides, as processes.
    expect((await admin("list", "--state", "received")).map((l) => l.id)).toContain(noticeId);
    expect((await admin("review", noticeId))[0]).toMatchObject({ notice_id: noticeId, state: "under_review", affected_workspace_id: workspaceId });
    expect((await admin("decide", noticeId, "--action", "withhold_message", "--reason", "A verbatim copy of the claimed chapter."))[0]).toMatchObject({
      state: "action_taken",
      measures: [{ type: "message_withheld", item_id: messageId }],
      mails: [
        { to: "notifier", purpose: "decision", outcome: "sent" },
        { to: "owner", purpose: "statement_of_reasons", outcome: "sent" },
      ],
    });
    // The statement of reasons reached the owner, the decision the notifier (through SMTP, from the operator's process).
    expect(smtp.to("owner@noticed.test").map((m) => m.subject)).toEqual([`Statement of reasons: DMCA notice ${noticeId}`]);
    expect(smtp.to("owner@noticed.test")[0]?.text).toContain("A verbatim copy of the claimed chapter.");
    expect(smtp.to("carla@example.com").map((m) => m.subject)).toContain(`Your notice ${noticeId}: decided (action_taken)`);
    expect((await publicView()).state).toBe("action_taken");

    // The message answers 451; bob's queue no longer holds it.
    const withheld = await call("GET", `/v1/messages/${messageId}`, { token: alice });
    expect(withheld.status).toBe(451);
    expect(withheld.body.error?.code).toBe("SVC_LEGALLY_WITHHELD");
    expect(((await call("POST", "/v1/messages/get-pending", { token: bob, body: {} })).body.items as unknown[]).length).toBe(0);

    // The workspace sees the disclosed notice (its administrative credential) with the statement of reasons.
    const listed = await call("GET", "/v1/notices", { token: adminToken });
    expect(listed.body.items).toMatchObject([{ id: noticeId, statement_of_reasons: { facts_and_circumstances: "A verbatim copy of the claimed chapter." } }]);

    // The owner counters through the route, as a person: signed in, with MFA and a fresh step-up.
    // (PUBLIC_BASE_URL is plain http on a non-loopback host: the cookies carry no __Host- prefix.)
    const ownerEmail = "owner@noticed.test";
    const ownerPassword = "counter-notice passphrase 7";
    const passwordHash = await service.deps.people?.passwords.hash(ownerPassword);
    await sql`update persons set password_hash = ${passwordHash ?? null} where workspace_id = ${workspaceId} and email = ${ownerEmail}`;
    const origin = { Origin: "http://agentq.test" };
    const cookieOf = (headers: Headers, name: string) => headers.getSetCookie().map((l) => l.split(";")[0] ?? "").find((pair) => pair.startsWith(`${name}=`) && pair.length > name.length + 1) ?? "";
    const signIn = await call("POST", "/v1/auth/sign-in", { body: { email: ownerEmail, password: ownerPassword } });
    expect(signIn.status).toBe(200);
    const counterBody = { signature: "/Owen Owner/", material: "The message named in the notice.", mistake_statement: true, name: "Owen Owner", address: "2 Side St", phone: "+1 555 0101", jurisdiction_consent: true };
    const counter = (headers: Record<string, string>, body: unknown = counterBody) => call("POST", `/v1/notices/${noticeId}/counter-notice`, { body, headers });
    // A credential cannot file it, nor a session without MFA.
    expect((await counter({ Authorization: `Bearer ${adminToken}` })).body.error?.code).toBe("SVC_TIER_INSUFFICIENT");
    const firstSession = { Cookie: cookieOf(signIn.headers, "agentq_session"), ...origin };
    expect((await counter(firstSession)).body.error).toMatchObject({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "mfa_not_enabled" } });
    const enrolled = await call("POST", "/v1/auth/mfa/totp/enroll", { headers: firstSession });
    const totp = new TOTP({ secret: Secret.fromBase32(enrolled.body.secret as string), algorithm: "SHA1", digits: 6, period: 30 });
    expect((await call("POST", "/v1/auth/mfa/totp/confirm", { headers: firstSession, body: { code: totp.generate({ timestamp: clock.now().getTime() }) } })).status).toBe(200);
    clock.offsetMs += 30_000;
    const again = await call("POST", "/v1/auth/sign-in", { body: { email: ownerEmail, password: ownerPassword } });
    const verified = await call("POST", "/v1/auth/mfa/verify", { headers: { Cookie: cookieOf(again.headers, "agentq_mfa"), ...origin }, body: { code: totp.generate({ timestamp: clock.now().getTime() }) } });
    expect(verified.status).toBe(200);
    const session = { Cookie: cookieOf(verified.headers, "agentq_session"), ...origin };
    // A write from another origin is refused; an incomplete counter-notice names what it lacks.
    expect((await counter({ ...session, Origin: "http://evil.test" })).body.error?.code).toBe("SVC_CSRF_REJECTED");
    expect((await counter(session, { ...counterBody, jurisdiction_consent: false })).body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { missing_elements: ["jurisdiction_consent"] } });
    // A signed-in MFA sign-in is a fresh step-up: the owner files it.
    const filed = await counter(session);
    expect(filed.status, JSON.stringify(filed.body)).toBe(200);
    expect(filed.body).toMatchObject({ id: noticeId, state: "contested" });
    const earliestAt = (filed.body.restoration as { earliest_at: string } | null)?.earliest_at ?? "";
    expect(earliestAt).not.toBe("");
    expect((await publicView()).state).toBe("contested");
    expect(smtp.to("carla@example.com").map((m) => m.subject)).toContain(`Counter-notice to your DMCA notice ${noticeId}`);
    const notifierView = await call("GET", `/v1/notices/${noticeId}`, { headers: { "Notice-Token": statusToken } });
    expect(notifierView.body).toMatchObject({ state: "contested", counter_notice: { elements: { name: "Owen Owner" } }, restoration: { earliest_at: earliestAt } });

    // The restoration job leaves it alone before the deadline, and lifts the measure after it.
    await new Promise((r) => setTimeout(r, 500));
    expect((await call("GET", `/v1/messages/${messageId}`, { token: alice })).status).toBe(451);
    clock.offsetMs = Date.parse(earliestAt) - Date.now() + DAY_MS / 24;
    const deadline = Date.now() + 20_000;
    let status = 451;
    while (status === 451 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await call("GET", `/v1/messages/${messageId}`, { token: alice })).status;
    }
    expect(status).toBe(200);
    expect((await publicView()).state).toBe("restored");
    // The job mails the lift after its commit: the owner and the notifier are told.
    const lifted = `Notice ${noticeId}: measures lifted`;
    const mailDeadline = Date.now() + 10_000;
    while (!smtp.to("owner@noticed.test").some((m) => m.subject === lifted) && Date.now() < mailDeadline) await new Promise((r) => setTimeout(r, 50));
    expect(smtp.to("owner@noticed.test").map((m) => m.subject)).toContain(lifted);
    expect(((await call("POST", "/v1/messages/get-pending", { token: bob, body: {} })).body.items as { envelope: { message_id: string } }[]).map((i) => i.envelope.message_id)).toEqual([messageId]);

    // The report counts it.
    const [report] = await admin("report", "--from", "2000-01-01", "--to", "2999-01-01");
    expect(report).toMatchObject({ received: 1, decided: 1, counter_notices: 1, restored: 1, by_kind_and_category: [{ kind: "dmca", category: "copyright", count: 1 }] });
  }, 180_000);

  it("refuses bad operator usage with exit 2 and a refused step with exit 1 and the code", async () => {
    expect((await runPnpm(["-s", "admin", "notices", "decide"], env)).code).toBe(2);
    expect((await runPnpm(["-s", "admin", "notices", "decide", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--action", "explode", "--reason", "x"], env)).code).toBe(2);
    const unknown = await runPnpm(["-s", "admin", "notices", "show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^SVC_RESOURCE_NOT_FOUND: /);
    const noAction = await runPnpm(["-s", "admin", "notices", "decide", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--reason", "x"], env);
    expect(noAction.code).toBe(1);
    expect(noAction.stderr).toMatch(/^SVC_MALFORMED_REQUEST: /);
  }, 60_000);
});
