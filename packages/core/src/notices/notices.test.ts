import { describe, expect, it } from "vitest";
import type { PersonPrincipal, Principal, Role, Workspace } from "../access/model.ts";
import { claimMessages } from "../messaging/claim-messages.ts";
import { ackMessage } from "../messaging/ack-message.ts";
import { getMessage } from "../messaging/get-message.ts";
import { findOperation } from "../operations/catalogue.ts";
import { executeOperation } from "../operations/execute.ts";
import { callOperation, refusalOf } from "../testing/guard-rail-calls.ts";
import { createMessagingScenario, type MessagingScenario } from "../testing/messaging-scenario.ts";
import { callContext, seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { DAY_MS } from "../time/duration.ts";
import { InMemoryMailer } from "../testing/in-memory-mailer.ts";
import { NOTICE_STATES, NOTICE_TRANSITIONS, type NoticeState } from "./notice.ts";
import { fileCounterNotice, fileCounterNoticeAsOwner } from "./counter-notice.ts";
import { decideNotice, requestNoticeInformation, restoreNotice, reviewNotice, upholdNotice } from "./operator-steps.ts";
import { noticeReport } from "./operator-reads.ts";
import { restoreDueNotices } from "./restore-due-notices.ts";
import { transition } from "./notice-lifecycle.ts";

// The notice model on the in-memory adapters: intake, the three views, the operator's steps, the
// measures (451, the claim path, restoration), the counter-notice and the restoration deadline.

// Each call comes from its own address unless one is named, so only the limit's own test meets the intake limit.
let addressSeq = 0;
const freshAddress = () => `2001:db8::${(++addressSeq).toString(16)}`;

async function publicCall(s: MessagingScenario, name: string, input: Record<string, unknown>, clientAddress = freshAddress(), principal?: Principal) {
  const op = findOperation(name);
  if (op === undefined) throw new Error(name);
  return executeOperation(s.world.deps, op, { principal: principal as Principal, requestId: "req-test", idempotencyKey: null, fingerprint: "", clientAddress }, input);
}

const dsaNotice = (messageId: string, workspaceId?: string) => ({
  kind: "dsa",
  category: "illegal_hate_speech",
  explanation: "The message incites hatred against a group.",
  locations: [{ type: "message", id: messageId, ...(workspaceId === undefined ? {} : { workspace_id: workspaceId }) }],
  notifier: { name: "Nora Notifier", email: "nora@example.org" },
  good_faith_statement: true,
});

const dmcaNotice = (messageId: string) => ({
  kind: "dmca",
  signature: "/Carla Claimant/",
  copyrighted_work: "The novel 'Queues of the North', chapter 3.",
  infringing_material: "The chapter's full text in a message payload.",
  locations: [{ type: "message", id: messageId }],
  notifier: { name: "Carla Claimant", email: "carla@example.com", address: "1 Main St, Springfield", phone: "+1 555 0100" },
  good_faith_statement: true,
  accuracy_statement: true,
});

const COUNTER = { signature: "/Owen Owner/", material: "The message named in the notice.", mistake_statement: true, name: "Owen Owner", address: "2 Side St, Shelbyville", phone: "+1 555 0101", jurisdiction_consent: true };

async function submit(s: MessagingScenario, body: Record<string, unknown>) {
  const res = await publicCall(s, "submit_notice", body);
  expect(res.status).toBe(201);
  return res.body as { notice: { id: string; state: string }; status_token: string };
}

describe("notice transitions", () => {
  it("follow the table of DESIGN §2b exactly", () => {
    const base = { state: "received" as NoticeState, events: [], id: "n" } as unknown as Parameters<typeof transition>[0];
    for (const from of NOTICE_STATES) {
      for (const to of NOTICE_STATES) {
        const allowed = NOTICE_TRANSITIONS[from].includes(to);
        const attempt = () => transition({ ...base, state: from }, to, { now: new Date(), activity: "t", by: "operator" });
        if (allowed) expect(attempt().state, `${from} -> ${to}`).toBe(to);
        else expect(attempt, `${from} -> ${to}`).toThrow();
      }
    }
    expect(NOTICE_TRANSITIONS.received).toEqual(["under_review", "withdrawn"]);
    expect(NOTICE_TRANSITIONS.action_taken).toEqual(["contested", "withdrawn"]);
    expect(NOTICE_TRANSITIONS.contested).toEqual(["restored", "upheld", "withdrawn"]);
  });
});

describe("intake", () => {
  it("answers 201 with a status token whether or not the named item exists", async () => {
    const s = await createMessagingScenario();
    const real = await submit(s, dsaNotice(await s.send()));
    const none = await submit(s, dsaNotice("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
    for (const r of [real, none]) {
      expect(r.notice.state).toBe("received");
      expect(r.status_token).toMatch(/^agq_nt_[A-Za-z0-9_-]{43}$/);
      expect(Object.keys(r).sort()).toEqual(["notice", "status_token"]);
      expect(Object.keys(r.notice).sort()).toEqual(["id", "kind", "received_at", "state"]);
    }
    // Only the keyed hash is stored.
    expect(JSON.stringify(s.world.tables.notices.notices.values())).not.toContain(real.status_token);
  });

  it("names the missing elements of each kind; a CSAM notice needs no name or email", async () => {
    const s = await createMessagingScenario();
    const m = await s.send();
    const { notifier: _n, good_faith_statement: _g, ...dsaBare } = dsaNotice(m);
    const dsa = await refusalOf(publicCall(s, "submit_notice", { ...dsaBare, good_faith_statement: false }));
    expect(dsa.code).toBe("SVC_MALFORMED_REQUEST");
    expect(dsa.details?.missing_elements).toEqual(["notifier.name", "notifier.email", "good_faith_statement"]);
    const dmca = await refusalOf(publicCall(s, "submit_notice", { kind: "dmca", locations: [{ type: "message", id: m }] }));
    expect(dmca.details?.missing_elements).toEqual(["signature", "copyrighted_work", "notifier.name", "notifier.email", "good_faith_statement", "accuracy_statement"]);
    await submit(s, { ...dsaBare, category: "child_sexual_abuse", good_faith_statement: true });
  });

  it("refuses control and bidirectional-override characters, attachments and non-http URLs", async () => {
    const s = await createMessagingScenario();
    const m = await s.send();
    for (const bad of ["a\u001bb", "evil\u202Eetxt", "x\u2066y", "c1\u0085"]) {
      const r = await refusalOf(publicCall(s, "submit_notice", { ...dsaNotice(m), explanation: bad }));
      expect(r.code).toBe("SVC_MALFORMED_REQUEST");
      expect(r.details?.reason).toBe("control_or_bidi_character");
    }
    // U+0000 is refused earlier, by the input check every operation passes (DESIGN §2c), naming the path.
    const nul = await refusalOf(publicCall(s, "submit_notice", { ...dsaNotice(m), explanation: "a\u0000b" }));
    expect(nul.code).toBe("SVC_MALFORMED_REQUEST");
    expect(nul.details?.errors).toEqual([expect.objectContaining({ path: "/explanation" })]);
    await submit(s, { ...dsaNotice(m), explanation: "Line one.\nLine two,\ttabbed." });
    expect((await refusalOf(publicCall(s, "submit_notice", { ...dsaNotice(m), attachment: "UEsDBAo=" }))).code).toBe("SVC_MALFORMED_REQUEST");
    expect((await refusalOf(publicCall(s, "submit_notice", { ...dsaNotice(m), locations: [{ type: "url", url: "data:text/html;base64,PGI+" }] }))).details?.field).toBe("locations/0/url");
  });

  it("is rate-limited per client address with Retry-After", async () => {
    const s = await createMessagingScenario();
    const m = await s.send();
    for (let i = 0; i < 5; i++) expect((await publicCall(s, "submit_notice", dsaNotice(m), "198.51.100.7")).status).toBe(201);
    const refused = await refusalOf(publicCall(s, "submit_notice", dsaNotice(m), "198.51.100.7"));
    expect(refused.code).toBe("SVC_RATE_LIMITED");
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.details).toMatchObject({ bucket: "notice_intake", limit: 5, window: "PT1M" });
    // Another address is not affected; the next window is open again.
    expect((await publicCall(s, "submit_notice", dsaNotice(m), "198.51.100.8")).status).toBe(201);
    s.world.clock.advance(60_000);
    expect((await publicCall(s, "submit_notice", dsaNotice(m), "198.51.100.7")).status).toBe(201);
  });
});

describe("status views", () => {
  it("shows anyone state and dates only; the notifier more with the token; a wrong token and an unknown id the same 404", async () => {
    const s = await createMessagingScenario();
    const { notice, status_token } = await submit(s, dsaNotice(await s.send()));
    const pub = (await publicCall(s, "get_notice", { notice_id: notice.id })).body as Record<string, unknown>;
    expect(Object.keys(pub).sort()).toEqual(["id", "kind", "received_at", "state", "updated_at"]);
    const mine = (await publicCall(s, "get_notice", { notice_id: notice.id, notice_token: status_token })).body as Record<string, unknown>;
    expect(mine).toMatchObject({ state: "received", submission: { notifier: { email: "nora@example.org" } }, decision: null });
    const wrong = await refusalOf(publicCall(s, "get_notice", { notice_id: notice.id, notice_token: "agq_nt_wrong" }));
    const unknown = await refusalOf(publicCall(s, "get_notice", { notice_id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" }));
    const malformedId = await refusalOf(publicCall(s, "get_notice", { notice_id: "nope" }));
    expect(wrong).toEqual(unknown);
    expect(malformedId).toEqual(unknown);
    expect(unknown.code).toBe("SVC_RESOURCE_NOT_FOUND");
    // Before disclosure even the affected workspace's administrator sees the public view.
    const admin = (await publicCall(s, "get_notice", { notice_id: notice.id }, "192.0.2.1", s.admin)).body as Record<string, unknown>;
    expect(Object.keys(admin).sort()).toEqual(["id", "kind", "received_at", "state", "updated_at"]);
  });
});

describe("the operator's steps, the measure and the restoration", () => {
  it("withholds a message after a DSA decision (451, out of the claim path), audits each step in the workspace, discloses it, and restores it", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const workspaceId = s.alice.workspace.id;
    const messageId = await s.send();
    const other = await s.send();
    const { notice, status_token } = await submit(s, dsaNotice(messageId));
    // Not yet resolved (no workspace_id): the review resolves it.
    let n = (await reviewNotice(deps, { noticeId: notice.id })).notice;
    expect(n.state).toBe("under_review");
    expect(n.affectedWorkspaceId).toBe(workspaceId);
    n = (await requestNoticeInformation(deps, { noticeId: notice.id, message: "Which words exactly?" })).notice;
    expect(n.state).toBe("needs_information");
    const supplemented = (await publicCall(s, "supplement_notice", { notice_id: notice.id, notice_token: status_token, text: "The second sentence." })).body as { state: string };
    expect(supplemented.state).toBe("under_review");

    // Before the decision the workspace's own audit view shows nothing of the notice.
    const visible = async () => (await deps.stores.audit.list({ workspaceId, activity: null, messageId: null, includeOperatorSignificant: false, after: null, limit: 1000 })).filter((r) => r.activity.startsWith("notice.") || r.activity.startsWith("message.withh")).map((r) => r.activity);
    const all = async () => (await deps.stores.audit.list({ workspaceId, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 1000 })).map((r) => r.activity);
    expect(await visible()).toEqual([]);
    expect(await all()).toEqual(expect.arrayContaining(["notice.received", "notice.review_started", "notice.information_requested", "notice.supplemented"]));
    expect((await callOperation(deps, s.admin, "list_notices", {})).body).toEqual({ items: [], next_cursor: null });

    n = (await decideNotice(deps, { noticeId: notice.id, action: "withhold_message", reason: "Incitement to hatred (national law)." })).notice;
    expect(n.state).toBe("action_taken");
    expect(n.measures).toMatchObject([{ type: "message_withheld", itemId: messageId, liftedAt: null }]);
    expect(await visible()).toEqual(expect.arrayContaining(["notice.disclosed", "notice.decided", "message.withheld"]));

    // Reads give 451; the claim path skips it; the other message still flows.
    expect((await refusalOf(getMessage(deps, callContext(s.bob), { message_id: messageId }))).code).toBe("SVC_LEGALLY_WITHHELD");
    expect((await refusalOf(getMessage(deps, callContext(s.alice), { message_id: messageId }))).code).toBe("SVC_LEGALLY_WITHHELD");
    const claimed = (await claimMessages(deps, callContext(s.bob), { max: 10 })).items.map((i) => i.envelope.message_id);
    expect(claimed).toEqual([other]);

    // The workspace sees the disclosed notice with its statement of reasons; never the DSA notifier's identity.
    const listed = (await callOperation(deps, s.admin, "list_notices", {})).body as { items: Record<string, unknown>[] };
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).toMatchObject({ id: notice.id, state: "action_taken", statement_of_reasons: { automated_means: false, facts_and_circumstances: "Incitement to hatred (national law)." }, items: [{ type: "message", id: messageId }] });
    expect(JSON.stringify(listed.items[0])).not.toContain("nora@example.org");
    expect(JSON.stringify(listed.items[0])).not.toContain("Nora Notifier");
    const viewed = (await publicCall(s, "get_notice", { notice_id: notice.id }, "192.0.2.1", s.admin)).body as Record<string, unknown>;
    expect(viewed).toMatchObject({ state: "action_taken", measures: [{ type: "message_withheld", item_id: messageId }] });
    // Another workspace's administrator sees only the public view, and nothing in its list.
    const otherWs = await seedTestWorkspace(deps.stores);
    const stranger = await seedPrincipal(deps.stores, otherWs, { friendlyName: "mallory", tier: "administrative", scopes: ["manage_ai_accounts"] });
    const strangerView = (await publicCall(s, "get_notice", { notice_id: notice.id }, "192.0.2.1", stranger)).body as Record<string, unknown>;
    expect(Object.keys(strangerView).sort()).toEqual(["id", "kind", "received_at", "state", "updated_at"]);
    expect((await callOperation(deps, stranger, "list_notices", {})).body).toEqual({ items: [], next_cursor: null });
    // An operational credential of the affected workspace is not its administration: the public view.
    expect(Object.keys((await publicCall(s, "get_notice", { notice_id: notice.id }, "192.0.2.1", s.bob)).body as object).sort()).toEqual(["id", "kind", "received_at", "state", "updated_at"]);
    // The notifier sees the decision with redress.
    const notifierView = (await publicCall(s, "get_notice", { notice_id: notice.id, notice_token: status_token })).body as { decision: { outcome: string; redress: string } };
    expect(notifierView.decision.outcome).toBe("action_taken");

    // A DSA complaint is decided by the operator: restoring returns the message to the claim path.
    await fileCounterNotice(deps, { noticeId: notice.id, workspaceId, filedBy: "person-owner", input: { explanation: "It is a quotation in a news report." }, requestId: null });
    n = (await restoreNotice(deps, { noticeId: notice.id, reason: "The complaint shows the text is reporting." })).notice;
    expect(n.state).toBe("restored");
    expect((await getMessage(deps, callContext(s.bob), { message_id: messageId })).state).toBe("pending");
    expect((await claimMessages(deps, callContext(s.bob), { max: 10 })).items.map((i) => i.envelope.message_id)).toEqual([messageId]);
    expect(await visible()).toEqual(expect.arrayContaining(["notice.contested", "notice.restored", "message.withholding_lifted"]));
  });

  it("a held message withheld: its consumer's ack gets 451; restored, it is claimable again at once", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const messageId = await s.send();
    const [item] = await s.claim();
    const { notice } = await submit(s, dsaNotice(messageId, s.alice.workspace.id));
    await reviewNotice(deps, { noticeId: notice.id });
    await decideNotice(deps, { noticeId: notice.id, action: "withhold_message", reason: "Illegal." });
    expect((await refusalOf(ackMessage(deps, callContext(s.bob), { message_id: messageId, lease_id: item?.lease.lease_id ?? "" }))).code).toBe("SVC_LEGALLY_WITHHELD");
    await fileCounterNotice(deps, { noticeId: notice.id, workspaceId: s.alice.workspace.id, filedBy: "p", input: { explanation: "No." }, requestId: null });
    await restoreNotice(deps, { noticeId: notice.id, reason: "Mistake." });
    expect((await s.claim()).map((i) => i.envelope.message_id)).toEqual([messageId]);
  });

  it("files a counter-notice only for an owner of the affected workspace with a fresh step-up", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const messageId = await s.send();
    const { notice } = await submit(s, dmcaNotice(messageId));
    await reviewNotice(deps, { noticeId: notice.id });
    await decideNotice(deps, { noticeId: notice.id, action: "withhold_message", reason: "Infringing copy." });
    const now = s.world.clock.now();
    const person = (workspace: Workspace, role: Role, stepUpUntil: Date | null, mfa = true): PersonPrincipal => ({
      kind: "person",
      workspace,
      person: { id: `person-${role}`, workspaceId: workspace.id, email: `${role}@example.test`, displayName: null, role, passwordHash: null, mfaEnabledAt: mfa ? now : null, createdAt: now },
      session: { id: "session", workspaceId: workspace.id, personId: `person-${role}`, stage: "active", tokenHash: "h", createdWithMfa: mfa, createdAt: now, lastSeenAt: now, expiresAt: new Date(now.getTime() + DAY_MS), stepUpUntil, endedAt: null },
    });
    const fresh = new Date(now.getTime() + 60_000);
    const file = (principal: Principal) => fileCounterNoticeAsOwner(deps, principal, { noticeId: notice.id, input: COUNTER, requestId: null });
    const workspace = s.alice.workspace;
    expect((await refusalOf(file(s.alice))).code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await refusalOf(file(person(workspace, "admin", fresh)))).code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await refusalOf(file(person(workspace, "viewer", fresh)))).code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await refusalOf(file(person(workspace, "owner", fresh, false)))).details).toMatchObject({ reason: "mfa_not_enabled" });
    expect((await refusalOf(file(person(workspace, "owner", new Date(now.getTime() - 1))))).details).toMatchObject({ reason: "step_up_expired" });
    const otherWorkspace = await seedTestWorkspace(deps.stores);
    expect((await refusalOf(file(person(otherWorkspace, "owner", fresh)))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    const filed = await file(person(workspace, "owner", fresh));
    expect(filed).toMatchObject({ id: notice.id, state: "contested", counter_notice: { elements: { name: "Owen Owner" } } });
    expect((await deps.stores.notices.find({ noticeId: notice.id }))?.counterNotice?.filedBy).toBe("person-owner");
  });

  it("restores a contested DMCA measure at the end of 10 business days, not before, and never after a court action", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const workspaceId = s.alice.workspace.id;
    s.world.clock.set(new Date("2026-11-20T15:00:00.000Z")); // a Friday; Thanksgiving (Nov 26) falls in the window
    const decided = async () => {
      const messageId = await s.send();
      const { notice } = await submit(s, dmcaNotice(messageId));
      await reviewNotice(deps, { noticeId: notice.id });
      await decideNotice(deps, { noticeId: notice.id, action: "freeze_account", reason: "Infringing copy sent by this account." });
      return { noticeId: notice.id, messageId };
    };
    const first = await decided();
    expect((await s.world.deps.stores.accounts.findById({ workspaceId, accountId: s.alice.account.id }))?.state).toBe("frozen");
    await s.world.deps.stores.accounts.transition({ workspaceId, accountId: s.alice.account.id, from: ["frozen"], to: "active", now: s.world.clock.now() });
    const second = await decided();
    const missing = await refusalOf(fileCounterNotice(deps, { noticeId: first.noticeId, workspaceId, filedBy: "owner", input: { ...COUNTER, jurisdiction_consent: false }, requestId: null }));
    expect(missing.details?.missing_elements).toEqual(["jurisdiction_consent"]);
    expect((await refusalOf(fileCounterNotice(deps, { noticeId: first.noticeId, workspaceId: "01ARZ3NDEKTSV4RRFFQ69G5FAV", filedBy: "x", input: COUNTER, requestId: null }))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    const { notice: contested } = await fileCounterNotice(deps, { noticeId: first.noticeId, workspaceId, filedBy: "owner", input: COUNTER, requestId: null });
    await fileCounterNotice(deps, { noticeId: second.noticeId, workspaceId, filedBy: "owner", input: COUNTER, requestId: null });
    // Filed Friday Nov 20: business days Nov 23, 24, 25, 27 (26 is Thanksgiving), 30, Dec 1, 2, 3, 4, 7 -> window opens at the end of Dec 7.
    expect(contested.restoration?.earliestAt.toISOString()).toBe("2026-12-08T00:00:00.000Z");
    expect(contested.restoration?.latestAt.toISOString()).toBe("2026-12-12T00:00:00.000Z");
    await upholdNotice(deps, { noticeId: second.noticeId, reason: "The claimant filed suit.", courtAction: "Case 1:26-cv-01234 (D. Del.)" });

    s.world.clock.set(new Date("2026-12-07T23:59:59.000Z"));
    expect(await restoreDueNotices(deps)).toBe(0);
    s.world.clock.set(new Date("2026-12-08T00:00:00.000Z"));
    expect(await restoreDueNotices(deps)).toBe(1);
    expect((await deps.stores.notices.find({ noticeId: first.noticeId }))?.state).toBe("restored");
    expect((await deps.stores.notices.find({ noticeId: second.noticeId }))?.state).toBe("upheld");
    expect((await deps.stores.accounts.findById({ workspaceId, accountId: s.alice.account.id }))?.state).toBe("active");
    s.world.clock.advance(30 * DAY_MS);
    expect(await restoreDueNotices(deps)).toBe(0);
  });

  it("refuses steps the table has not, and a decision that locates nothing for its action", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const { notice } = await submit(s, dsaNotice("01ARZ3NDEKTSV4RRFFQ69G5FAV"));
    expect((await refusalOf(decideNotice(deps, { noticeId: notice.id, action: "none", reason: "r" }))).code).toBe("SVC_RESOURCE_CONFLICT");
    await reviewNotice(deps, { noticeId: notice.id });
    expect((await refusalOf(decideNotice(deps, { noticeId: notice.id, action: "withhold_message", reason: "r" }))).code).toBe("SVC_RESOURCE_CONFLICT");
    expect((await refusalOf(decideNotice(deps, { noticeId: notice.id, action: "delete_everything", reason: "r" }))).code).toBe("SVC_MALFORMED_REQUEST");
    const n = (await decideNotice(deps, { noticeId: notice.id, action: "none", reason: "No such message.", dismiss: true })).notice;
    expect(n.state).toBe("dismissed");
    expect(n.disclosedAt).toBeNull();
    expect((await refusalOf(restoreNotice(deps, { noticeId: notice.id, reason: "r" }))).code).toBe("SVC_RESOURCE_CONFLICT");
  });

  it("lets the notifier withdraw with the token, lifting the measure", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const messageId = await s.send();
    const { notice, status_token } = await submit(s, dsaNotice(messageId));
    await reviewNotice(deps, { noticeId: notice.id });
    await decideNotice(deps, { noticeId: notice.id, action: "freeze_workspace", reason: "Repeated illegal content." });
    expect((await deps.stores.workspaces.findById({ workspaceId: s.alice.workspace.id }))?.state).toBe("frozen");
    expect((await refusalOf(publicCall(s, "withdraw_notice", { notice_id: notice.id, notice_token: `${status_token}x` }))).code).toBe("SVC_RESOURCE_NOT_FOUND");
    const withdrawn = (await publicCall(s, "withdraw_notice", { notice_id: notice.id, notice_token: status_token })).body as { state: string };
    expect(withdrawn.state).toBe("withdrawn");
    expect((await deps.stores.workspaces.findById({ workspaceId: s.alice.workspace.id }))?.state).toBe("active");
    expect((await refusalOf(publicCall(s, "withdraw_notice", { notice_id: notice.id, notice_token: status_token }))).code).toBe("SVC_RESOURCE_CONFLICT");
  });
});

describe("report", () => {
  it("counts by kind and category and gives the median time to decision", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    const from = s.world.clock.now();
    const m = await s.send();
    const a = await submit(s, dsaNotice(m));
    const b = await submit(s, dsaNotice(m));
    await submit(s, dmcaNotice(m));
    await reviewNotice(deps, { noticeId: a.notice.id });
    await reviewNotice(deps, { noticeId: b.notice.id });
    s.world.clock.advance(2 * 3_600_000);
    await decideNotice(deps, { noticeId: a.notice.id, action: "none", reason: "Lawful." });
    s.world.clock.advance(4 * 3_600_000);
    await decideNotice(deps, { noticeId: b.notice.id, action: "withhold_message", reason: "Unlawful." });
    const report = await noticeReport(deps, { from, to: new Date(s.world.clock.now().getTime() + 1) });
    expect(report).toMatchObject({
      received: 3,
      decided: 2,
      median_hours_to_decision: 4,
      by_kind_and_category: [
        { kind: "dmca", category: "copyright", count: 1 },
        { kind: "dsa", category: "illegal_hate_speech", count: 2 },
      ],
      by_state: { received: 1, no_action: 1, action_taken: 1 },
    });
    expect((await refusalOf(noticeReport(deps, { from, to: from }))).code).toBe("SVC_MALFORMED_REQUEST");
  });
});

describe("mail to the parties", () => {
  async function withMailer() {
    const s = await createMessagingScenario();
    const mailer = new InMemoryMailer();
    s.world.deps.mailer = mailer;
    s.world.deps.publicBaseUrl = "https://queue.example";
    const owner = (await s.world.deps.stores.workspaces.findOwner({ workspaceId: s.alice.workspace.id }))?.email ?? "";
    return { s, mailer, owner };
  }
  const eventually = async (check: () => boolean) => {
    for (let i = 0; i < 50 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
    expect(check()).toBe(true);
  };

  it("mails the receipt, the request for information and the decision to the notifier, and the statement of reasons to the owner", async () => {
    const { s, mailer, owner } = await withMailer();
    const deps = s.world.deps;
    const messageId = await s.send();
    const { notice } = await submit(s, dsaNotice(messageId));
    await eventually(() => mailer.to("nora@example.org").length === 1);
    expect(mailer.to("nora@example.org")[0]?.subject).toContain(notice.id);
    expect(mailer.to("nora@example.org")[0]?.text).toContain(`https://queue.example/v1/notices/${notice.id}`);
    await reviewNotice(deps, { noticeId: notice.id });
    expect((await requestNoticeInformation(deps, { noticeId: notice.id, message: "Which sentence?" })).mails).toEqual([{ to: "notifier", purpose: "information_request", outcome: "sent" }]);
    expect(mailer.to("nora@example.org")[1]?.text).toContain("Which sentence?");
    const decided = await decideNotice(deps, { noticeId: notice.id, action: "withhold_message", reason: "Fraud." });
    expect(decided.mails).toEqual([
      { to: "notifier", purpose: "decision", outcome: "sent" },
      { to: "owner", purpose: "statement_of_reasons", outcome: "sent" },
    ]);
    const statement = mailer.to(owner)[0];
    expect(statement?.subject).toContain("Statement of reasons");
    expect(statement?.text).toContain(messageId);
    expect(statement?.text).toContain("Fraud.");
    expect(statement?.text).not.toContain("nora@example.org");
    // A DSA complaint restored: both are told.
    await fileCounterNotice(deps, { noticeId: notice.id, workspaceId: s.alice.workspace.id, filedBy: "owner", input: { explanation: "Not fraud." }, requestId: null });
    expect((await restoreNotice(deps, { noticeId: notice.id, reason: "Shown lawful." })).mails.map((m) => m.to).sort()).toEqual(["notifier", "owner"]);
  });

  it("mails a DMCA counter-notice to the notifier with the restoration date; no mail to a nameless CSAM notifier", async () => {
    const { s, mailer } = await withMailer();
    const deps = s.world.deps;
    const { notice } = await submit(s, dmcaNotice(await s.send()));
    await reviewNotice(deps, { noticeId: notice.id });
    await decideNotice(deps, { noticeId: notice.id, action: "withhold_message", reason: "Copy." });
    const filed = await fileCounterNotice(deps, { noticeId: notice.id, workspaceId: s.alice.workspace.id, filedBy: "owner", input: COUNTER, requestId: null });
    expect(filed.mails).toEqual([{ to: "notifier", purpose: "counter_notice", outcome: "sent" }]);
    const copy = mailer.to("carla@example.com").find((m) => m.subject.startsWith("Counter-notice"));
    expect(copy?.text).toContain("jurisdiction_consent: true");
    expect(copy?.text).toContain(filed.notice.restoration?.earliestAt.toISOString() ?? "missing");
    const before = mailer.sent.length;
    const { notifier: _n, ...nameless } = dsaNotice(await s.send());
    await submit(s, { ...nameless, category: "child_sexual_abuse" });
    await new Promise((r) => setTimeout(r, 20));
    expect(mailer.sent.length).toBe(before);
  });

  it("keeps the step made when the mail transport fails, and says which mail failed", async () => {
    const { s, mailer } = await withMailer();
    const deps = s.world.deps;
    mailer.failing = true;
    const { notice } = await submit(s, dsaNotice(await s.send()));
    await reviewNotice(deps, { noticeId: notice.id });
    const decided = await decideNotice(deps, { noticeId: notice.id, action: "withhold_message", reason: "Fraud." });
    expect(decided.notice.state).toBe("action_taken");
    expect(decided.mails.map((m) => m.outcome)).toEqual(["failed", "failed"]);
    expect((await deps.stores.notices.find({ noticeId: notice.id }))?.state).toBe("action_taken");
  });
});
