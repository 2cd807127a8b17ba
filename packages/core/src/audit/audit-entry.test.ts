import { describe, expect, it } from "vitest";
import type { Principal } from "../access/model.ts";
import { accessAuditEntry } from "../access/access-audit.ts";
import type { Notice } from "../notices/notice.ts";
import { noticeAuditEntry } from "../notices/notice-audit.ts";
import { personAuditEntry } from "../people/people-audit.ts";
import { webhookAuditEntry } from "../webhooks/webhook-audit.ts";
import { auditEntry } from "./audit-entry.ts";

// One builder writes every area's audit rows: who acted goes into the actor columns (a
// credential) or the details (a person), and the area builders only name their subject.
const ids = () => {
  let n = 0;
  return { next: () => `id${++n}` };
};
const at = new Date("2026-01-02T03:04:05.000Z");
const credential = { workspace: { id: "w1" }, account: { id: "a1" }, credential: { id: "c1" } } as unknown as Principal;
const person = { kind: "person", workspace: { id: "w1" }, person: { id: "p1" } } as unknown as Principal;
const facts = { workspaceId: "w1", occurredAt: at, activity: "thing.done", subjectType: "thing", subjectId: "t1", requestId: "r1" };

describe("auditEntry", () => {
  it("puts a credential's AI account and credential in the actor columns", () => {
    expect(auditEntry({ ids: ids() }, credential, { ...facts, details: { x: 1 } })).toEqual({ id: "id1", ...facts, actorAccountId: "a1", actorCredentialId: "c1", messageId: null, details: { x: 1 }, operatorSignificant: false });
  });

  it("names a person in the details (actor_person_id), the actor columns null; nobody leaves both empty", () => {
    expect(auditEntry({ ids: ids() }, person, facts)).toMatchObject({ actorAccountId: null, actorCredentialId: null, details: { actor_person_id: "p1" } });
    expect(auditEntry({ ids: ids() }, null, { ...facts, messageId: "m1", operatorSignificant: true })).toMatchObject({ actorAccountId: null, actorCredentialId: null, messageId: "m1", details: {}, operatorSignificant: true });
  });

  it("is what the area builders write: access, webhooks, people and notices", () => {
    expect(accessAuditEntry({ ids: ids() }, { principal: person, requestId: "r1" }, { ...facts, subjectType: "credential", details: { y: 2 }, operatorSignificant: true })).toEqual({ id: "id1", ...facts, subjectType: "credential", actorAccountId: null, actorCredentialId: null, messageId: null, details: { y: 2, actor_person_id: "p1" }, operatorSignificant: true });
    expect(webhookAuditEntry({ ids: ids() }, { principal: credential, requestId: "r1" }, { workspaceId: "w1", occurredAt: at, activity: "webhook.deleted", webhookId: "h1", details: {} })).toEqual({ id: "id1", workspaceId: "w1", occurredAt: at, activity: "webhook.deleted", actorAccountId: "a1", actorCredentialId: "c1", subjectType: "webhook", subjectId: "h1", messageId: null, details: {}, operatorSignificant: false, requestId: "r1" });
    expect(personAuditEntry({ ids: ids() }, { workspaceId: "w1", occurredAt: at, activity: "person.signed_in", subjectId: "p2", actorPersonId: "p2", requestId: null })).toEqual({ id: "id1", workspaceId: "w1", occurredAt: at, activity: "person.signed_in", actorAccountId: null, actorCredentialId: null, subjectType: "person", subjectId: "p2", messageId: null, details: { actor_person_id: "p2" }, operatorSignificant: false, requestId: null });
    const notice = { id: "n1", kind: "dsa", disclosedAt: null } as unknown as Notice;
    expect(noticeAuditEntry({ ids: ids() }, notice, { workspaceId: "w1", occurredAt: at, activity: "notice.received", by: "notifier" })).toEqual({ id: "id1", workspaceId: "w1", occurredAt: at, activity: "notice.received", actorAccountId: null, actorCredentialId: null, subjectType: "notice", subjectId: "n1", messageId: null, details: { notice_id: "n1", kind: "dsa", by: "notifier" }, operatorSignificant: true, requestId: null });
  });
});
