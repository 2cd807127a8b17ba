import type { Person, PersonToken, PersonTokenPurpose, Role } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { PERSON_COLUMN_NAMES, toPerson, type PersonRow } from "./workspaces.ts";

interface TokenRow {
  workspace_id: string;
  id: string;
  person_id: string;
  purpose: PersonTokenPurpose;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

function toToken(r: TokenRow): PersonToken {
  return { id: r.id, workspaceId: r.workspace_id, personId: r.person_id, purpose: r.purpose, tokenHash: r.token_hash, createdAt: r.created_at, expiresAt: r.expires_at, usedAt: r.used_at };
}

/** Inserts a person token. */
export async function personTokensInsert(sql: SqlClient, p: { token: PersonToken }): Promise<void> {
  const t = p.token;
  await sql`
    insert into person_tokens (workspace_id, id, person_id, purpose, token_hash, created_at, expires_at, used_at)
    values (${t.workspaceId}, ${t.id}, ${t.personId}, ${t.purpose}, ${t.tokenHash}, ${t.createdAt}, ${t.expiresAt}, ${t.usedAt})`;
}

/** The token with that hash, or null. */
export async function personTokensFindByHash(sql: SqlClient, p: { tokenHash: string }): Promise<PersonToken | null> {
  const [row] = await sql<TokenRow[]>`select * from person_tokens where token_hash = ${p.tokenHash}`;
  return row ? toToken(row) : null;
}

/** Spends an unused, unexpired token: one conditional update. */
export async function personTokensSpend(sql: SqlClient, p: { tokenHash: string; now: Date }): Promise<PersonToken | null> {
  const [row] = await sql<TokenRow[]>`
    update person_tokens set used_at = ${p.now}
    where token_hash = ${p.tokenHash} and used_at is null and expires_at > ${p.now}
    returning *`;
  return row ? toToken(row) : null;
}

/** Tokens of a purpose issued to the person since `since`. */
export async function personTokensCountIssuedSince(sql: SqlClient, p: { workspaceId: string; personId: string; purpose: PersonTokenPurpose; since: Date }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from person_tokens
    where workspace_id = ${p.workspaceId} and person_id = ${p.personId} and purpose = ${p.purpose} and created_at >= ${p.since}`;
  return row?.n ?? 0;
}

/** Spends every unused token of the person. */
export async function personTokensSpendAllOfPerson(sql: SqlClient, p: { workspaceId: string; personId: string; now: Date }): Promise<number> {
  const rows = await sql`
    update person_tokens set used_at = ${p.now}
    where workspace_id = ${p.workspaceId} and person_id = ${p.personId} and used_at is null
    returning id`;
  return rows.length;
}

/** Deletes tokens that expired before `before`. */
export async function personTokensPurgeExpiredBefore(sql: SqlClient, p: { before: Date }): Promise<number> {
  const rows = await sql`delete from person_tokens where expires_at < ${p.before} returning id`;
  return rows.length;
}

/** The workspace's people, oldest first. */
export async function workspacePeopleList(sql: SqlClient, p: { workspaceId: string }): Promise<Person[]> {
  const rows = await sql<PersonRow[]>`select ${sql(PERSON_COLUMN_NAMES)} from persons where workspace_id = ${p.workspaceId} order by created_at, id`;
  return rows.map(toPerson);
}

/** How many people the workspace has. */
export async function workspacePeopleCount(sql: SqlClient, p: { workspaceId: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from persons where workspace_id = ${p.workspaceId}`;
  return row?.n ?? 0;
}

/**
 * Locks the workspace row (so owner changes of one workspace queue) and reads the person and
 * how many owners the workspace has. Null when the person is missing.
 */
async function lockAndRead(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<{ person: Person; owners: number; recordedOwnerId: string } | null> {
  const [ws] = await sql<{ owner_person_id: string }[]>`select owner_person_id from workspaces where id = ${p.workspaceId} for update`;
  if (!ws) return null;
  const [row] = await sql<PersonRow[]>`select ${sql(PERSON_COLUMN_NAMES)} from persons where workspace_id = ${p.workspaceId} and id = ${p.personId}`;
  if (!row) return null;
  const [count] = await sql<{ n: number }[]>`select count(*)::int as n from persons where workspace_id = ${p.workspaceId} and role = 'owner'`;
  return { person: toPerson(row), owners: count?.n ?? 0, recordedOwnerId: ws.owner_person_id };
}

/** Keeps workspaces.owner_person_id on an owner: the oldest other owner, when it named `personId`. */
async function reassignRecordedOwner(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<void> {
  await sql`
    update workspaces set owner_person_id = (
      select id from persons where workspace_id = ${p.workspaceId} and role = 'owner' and id <> ${p.personId} order by created_at, id limit 1)
    where id = ${p.workspaceId} and owner_person_id = ${p.personId}
      and exists (select 1 from persons where workspace_id = ${p.workspaceId} and role = 'owner' and id <> ${p.personId})`;
}

/** Sets a person's role unless that leaves the workspace without an owner. Call inside a transaction (the lock). */
export async function workspacePeopleSetRole(sql: SqlClient, p: { workspaceId: string; personId: string; role: Role }): Promise<{ kind: "changed"; before: Person; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
  const read = await lockAndRead(sql, p);
  if (read === null) return { kind: "not_found" };
  if (read.person.role === "owner" && p.role !== "owner" && read.owners <= 1) return { kind: "last_owner" };
  const [row] = await sql<PersonRow[]>`
    update persons set role = ${p.role} where workspace_id = ${p.workspaceId} and id = ${p.personId}
    returning ${sql(PERSON_COLUMN_NAMES)}`;
  if (!row) return { kind: "not_found" };
  if (p.role !== "owner" && read.recordedOwnerId === p.personId) await reassignRecordedOwner(sql, p);
  return { kind: "changed", before: read.person, person: toPerson(row) };
}

/** Deletes a person's row, sessions, recovery codes, tokens and linked identities. */
async function deletePerson(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<void> {
  await sql`delete from person_identities where workspace_id = ${p.workspaceId} and person_id = ${p.personId}`;
  await sql`delete from person_sessions where workspace_id = ${p.workspaceId} and person_id = ${p.personId}`;
  await sql`delete from person_recovery_codes where workspace_id = ${p.workspaceId} and person_id = ${p.personId}`;
  await sql`delete from person_tokens where workspace_id = ${p.workspaceId} and person_id = ${p.personId}`;
  await sql`delete from persons where workspace_id = ${p.workspaceId} and id = ${p.personId}`;
}

/** Erases a person whatever their role; tells whether no owner is left. Call inside a transaction. */
export async function workspacePeopleErase(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<{ kind: "erased"; person: Person; wasLastOwner: boolean } | { kind: "not_found" }> {
  const read = await lockAndRead(sql, p);
  if (read === null) return { kind: "not_found" };
  const wasLastOwner = read.person.role === "owner" && read.owners <= 1;
  if (read.recordedOwnerId === p.personId) await reassignRecordedOwner(sql, p);
  await deletePerson(sql, p);
  return { kind: "erased", person: read.person, wasLastOwner };
}

/** Removes a person with their sessions, recovery codes and tokens unless they are the last owner. Call inside a transaction. */
export async function workspacePeopleRemove(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<{ kind: "removed"; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
  const read = await lockAndRead(sql, p);
  if (read === null) return { kind: "not_found" };
  if (read.person.role === "owner" && read.owners <= 1) return { kind: "last_owner" };
  if (read.recordedOwnerId === p.personId) await reassignRecordedOwner(sql, p);
  await deletePerson(sql, p);
  return { kind: "removed", person: read.person };
}
