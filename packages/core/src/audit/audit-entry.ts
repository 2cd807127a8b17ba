import type { Principal } from "../access/model.ts";

/** An audit row to be written in the same transaction as the change it records. */
export interface NewAuditEntry {
  id: string;
  workspaceId: string;
  occurredAt: Date;
  /** Dotted activity name, e.g. `message.sent`, `credential.revoked`. */
  activity: string;
  actorAccountId: string | null;
  actorCredentialId: string | null;
  subjectType: string;
  subjectId: string;
  messageId: string | null;
  details: Record<string, unknown>;
  /** Withheld from the workspace's own audit view (GET /v1/audit-log). */
  operatorSignificant: boolean;
  requestId: string | null;
}

/** A stored audit row; `seq`, `prevHash` and `hash` are set when the sealer links it into the chain. */
export interface AuditEntry extends NewAuditEntry {
  seq: number | null;
  prevHash: string | null;
  hash: string | null;
  sealedAt: Date | null;
}

/** What an audit row says of its change; `auditEntry` adds the id, the actor and the defaults. */
export interface AuditFacts {
  workspaceId: string;
  occurredAt: Date;
  activity: string;
  subjectType: string;
  subjectId: string;
  /** The message the row is about, if any (default none). */
  messageId?: string | null | undefined;
  details?: Record<string, unknown> | undefined;
  /** Withheld from the workspace's own audit view (default false). */
  operatorSignificant?: boolean | undefined;
  requestId: string | null;
}

/**
 * The one builder of audit rows, every area's (access, messages, webhooks, policies, notices,
 * people, session state, refusals, OAuth, plans). The actor is a principal or nobody (the
 * service, an operator, bootstrap): a credential fills the AI account and credential columns, a
 * person's session adds `actor_person_id` to the details (the columns keep the chain's row shape,
 * docs/decisions.md).
 */
export function auditEntry(deps: { ids: { next(): string } }, actor: Principal | null, p: AuditFacts): NewAuditEntry {
  return {
    id: deps.ids.next(),
    workspaceId: p.workspaceId,
    occurredAt: p.occurredAt,
    activity: p.activity,
    ...actorColumns(actor),
    subjectType: p.subjectType,
    subjectId: p.subjectId,
    messageId: p.messageId ?? null,
    details: { ...p.details, ...actorDetails(actor) },
    operatorSignificant: p.operatorSignificant ?? false,
    requestId: p.requestId,
  };
}

/**
 * The actor columns of an audit row: a credential's AI account and credential; null for a
 * person (named in the details instead, `actorDetails`) and for nobody.
 */
export function actorColumns(principal: Principal | null): Pick<NewAuditEntry, "actorAccountId" | "actorCredentialId"> {
  if (principal === null || principal.kind === "person") return { actorAccountId: null, actorCredentialId: null };
  return { actorAccountId: principal.account.id, actorCredentialId: principal.credential.id };
}

/** Details naming a person actor (`actor_person_id`), merged into an audit row's details; empty for a credential. */
export function actorDetails(principal: Principal | null): Record<string, unknown> {
  return personDetails(principal !== null && principal.kind === "person" ? principal.person.id : null);
}

/** `actor_person_id` when a person acted (known by id only: a sign-in, an OAuth consent), else nothing. */
export function personDetails(personId: string | null): Record<string, unknown> {
  return personId === null ? {} : { actor_person_id: personId };
}
