import type { LinkedIdentity } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

interface IdentityRow {
  workspace_id: string;
  id: string;
  person_id: string;
  issuer: string;
  subject: string;
  created_at: Date;
}

function toIdentity(r: IdentityRow): LinkedIdentity {
  return { id: r.id, workspaceId: r.workspace_id, personId: r.person_id, issuer: r.issuer, subject: r.subject, createdAt: r.created_at };
}

/**
 * Links an identity unless its issuer and subject are linked already: `ON CONFLICT DO NOTHING`
 * on person_identities_issuer_subject_key (a concurrent insert of the same pair waits for the
 * other transaction, then does nothing), so it never raises and a caller's transaction stays
 * usable. True when inserted.
 */
export async function personIdentitiesInsert(sql: SqlClient, p: { identity: LinkedIdentity }): Promise<boolean> {
  const i = p.identity;
  const rows = await sql`
    insert into person_identities (workspace_id, id, person_id, issuer, subject, created_at)
    values (${i.workspaceId}, ${i.id}, ${i.personId}, ${i.issuer}, ${i.subject}, ${i.createdAt})
    on conflict (issuer, subject) do nothing
    returning id`;
  return rows.length === 1;
}

/** The identity linked for that issuer and subject, or null. */
export async function personIdentitiesFindBySubject(sql: SqlClient, p: { issuer: string; subject: string }): Promise<LinkedIdentity | null> {
  const [row] = await sql<IdentityRow[]>`select * from person_identities where issuer = ${p.issuer} and subject = ${p.subject}`;
  return row ? toIdentity(row) : null;
}

/** The person's identities, oldest first. */
export async function personIdentitiesListOfPerson(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<LinkedIdentity[]> {
  const rows = await sql<IdentityRow[]>`select * from person_identities where workspace_id = ${p.workspaceId} and person_id = ${p.personId} order by created_at, id`;
  return rows.map(toIdentity);
}
