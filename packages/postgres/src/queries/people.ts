import type { Person, PersonMfa, PersonSession, Workspace } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { PERSON_COLUMN_NAMES, toPerson, toWorkspace, type PersonRow, type WorkspaceRow } from "./workspaces.ts";

interface SessionRow {
  workspace_id: string;
  id: string;
  person_id: string;
  stage: PersonSession["stage"];
  token_hash: string;
  created_with_mfa: boolean;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  step_up_until: Date | null;
  ended_at: Date | null;
}

function toSession(r: SessionRow): PersonSession {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    personId: r.person_id,
    stage: r.stage,
    tokenHash: r.token_hash,
    createdWithMfa: r.created_with_mfa,
    createdAt: r.created_at,
    lastSeenAt: r.last_seen_at,
    expiresAt: r.expires_at,
    stepUpUntil: r.step_up_until,
    endedAt: r.ended_at,
  };
}

/** Inserts a person; false when the email is taken (never raises the unique violation). */
export async function personsInsert(sql: SqlClient, p: { person: Person }): Promise<boolean> {
  const o = p.person;
  const rows = await sql`
    insert into persons (workspace_id, id, email, display_name, role, password_hash, mfa_enabled_at, created_at)
    values (${o.workspaceId}, ${o.id}, ${o.email}, ${o.displayName}, ${o.role}, ${o.passwordHash}, ${o.mfaEnabledAt}, ${o.createdAt})
    on conflict (email) do nothing
    returning id`;
  return rows.length === 1;
}

/** The person with that email (any workspace), or null. */
export async function personsFindByEmail(sql: SqlClient, p: { email: string }): Promise<Person | null> {
  const [row] = await sql<PersonRow[]>`select ${sql(PERSON_COLUMN_NAMES)} from persons where email = ${p.email}`;
  return row ? toPerson(row) : null;
}

/** The person, or null. */
export async function personsFindById(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<Person | null> {
  const [row] = await sql<PersonRow[]>`select ${sql(PERSON_COLUMN_NAMES)} from persons where workspace_id = ${p.workspaceId} and id = ${p.personId}`;
  return row ? toPerson(row) : null;
}

/** The person and their workspace in one statement, or null. */
export async function personsLoadSessionContext(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<{ person: Person; workspace: Workspace } | null> {
  const [row] = await sql<(PersonRow & { w_name: string; w_state: WorkspaceRow["state"]; w_max_deliveries: number; w_created_at: Date; w_closed_at: Date | null })[]>`
    select p.id, p.workspace_id, p.email, p.display_name, p.role, p.password_hash, p.mfa_enabled_at, p.created_at,
           w.name as w_name, w.state as w_state, w.max_deliveries as w_max_deliveries, w.created_at as w_created_at, w.closed_at as w_closed_at
    from persons p join workspaces w on w.id = p.workspace_id
    where p.workspace_id = ${p.workspaceId} and p.id = ${p.personId}`;
  if (!row) return null;
  return { person: toPerson(row), workspace: toWorkspace({ id: row.workspace_id, name: row.w_name, state: row.w_state, max_deliveries: row.w_max_deliveries, created_at: row.w_created_at, closed_at: row.w_closed_at }) };
}

/** Sets the password hash; the updated person, or null. */
export async function personsSetPasswordHash(sql: SqlClient, p: { workspaceId: string; personId: string; passwordHash: string }): Promise<Person | null> {
  const [row] = await sql<PersonRow[]>`
    update persons set password_hash = ${p.passwordHash} where workspace_id = ${p.workspaceId} and id = ${p.personId}
    returning ${sql(PERSON_COLUMN_NAMES)}`;
  return row ? toPerson(row) : null;
}

/** Inserts a session. */
export async function sessionsInsert(sql: SqlClient, p: { session: PersonSession }): Promise<void> {
  const s = p.session;
  await sql`
    insert into person_sessions (workspace_id, id, person_id, stage, token_hash, created_with_mfa, created_at, last_seen_at, expires_at, step_up_until, ended_at)
    values (${s.workspaceId}, ${s.id}, ${s.personId}, ${s.stage}, ${s.tokenHash}, ${s.createdWithMfa}, ${s.createdAt}, ${s.lastSeenAt}, ${s.expiresAt}, ${s.stepUpUntil}, ${s.endedAt})`;
}

/** The session with that value hash, or null. */
export async function sessionsFindByTokenHash(sql: SqlClient, p: { tokenHash: string }): Promise<PersonSession | null> {
  const [row] = await sql<SessionRow[]>`select * from person_sessions where token_hash = ${p.tokenHash}`;
  return row ? toSession(row) : null;
}

/** Moves a live session's last_seen_at forward. */
export async function sessionsTouch(sql: SqlClient, p: { workspaceId: string; sessionId: string; lastSeenAt: Date }): Promise<void> {
  await sql`
    update person_sessions set last_seen_at = ${p.lastSeenAt}
    where workspace_id = ${p.workspaceId} and id = ${p.sessionId} and ended_at is null and last_seen_at < ${p.lastSeenAt}`;
}

/** Sets a live session's step-up horizon; the updated session, or null. */
export async function sessionsSetStepUp(sql: SqlClient, p: { workspaceId: string; sessionId: string; stepUpUntil: Date }): Promise<PersonSession | null> {
  const [row] = await sql<SessionRow[]>`
    update person_sessions set step_up_until = ${p.stepUpUntil}
    where workspace_id = ${p.workspaceId} and id = ${p.sessionId} and ended_at is null
    returning *`;
  return row ? toSession(row) : null;
}

/** Ends a live session; false when missing or already ended. */
export async function sessionsEnd(sql: SqlClient, p: { workspaceId: string; sessionId: string; now: Date }): Promise<boolean> {
  const rows = await sql`
    update person_sessions set ended_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.sessionId} and ended_at is null
    returning id`;
  return rows.length === 1;
}

/** Ends the person's live sessions (only those created without MFA when asked); their ids. */
export async function sessionsEndAllOfPerson(sql: SqlClient, p: { workspaceId: string; personId: string; now: Date; onlyWithoutMfa: boolean }): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update person_sessions set ended_at = ${p.now}
    where workspace_id = ${p.workspaceId} and person_id = ${p.personId} and ended_at is null
      and (not ${p.onlyWithoutMfa}::boolean or not created_with_mfa)
    returning id`;
  return rows.map((r) => r.id);
}

/** Deletes sessions that ended or expired before `before`. */
export async function sessionsPurgeBefore(sql: SqlClient, p: { before: Date }): Promise<number> {
  const rows = await sql`delete from person_sessions where coalesce(ended_at, expires_at) < ${p.before} returning id`;
  return rows.length;
}

/**
 * Takes the advisory transaction lock of one throttle key (`scope` "email" or "address"): the
 * attempts of that key queue here until the holder's transaction ends. Callers take the email's
 * lock before the address's, always, so two attempts never wait for each other in a cycle.
 */
export async function signInFailuresLockKey(sql: SqlClient, p: { scope: "email" | "address"; key: string }): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`sign_in_failures:${p.scope}:${p.key}`}, 0))`;
}

/**
 * Admits one attempt in ONE statement: counts the email's and the address's attempts at or after
 * `since` and, only when both are under their limits, inserts the attempt; answers the counts
 * seen before it and whether it went in. Atomic only under both keys' advisory locks
 * (`signInFailuresLockKey`, taken in earlier statements of the same transaction, so this
 * statement's snapshot sees every attempt committed before the locks were granted).
 */
export async function signInFailuresAdmit(sql: SqlClient, p: { id: string; emailKey: string; addressKey: string; at: Date; since: Date; emailLimit: number; addressLimit: number }): Promise<{ admitted: boolean; email: { count: number; oldest: Date | null }; address: { count: number; oldest: Date | null } }> {
  const [row] = await sql<{ e_count: number; e_oldest: Date | null; a_count: number; a_oldest: Date | null; admitted: number }[]>`
    with e as (select count(*)::int as n, min(failed_at) as oldest from sign_in_failures where email_key = ${p.emailKey} and failed_at >= ${p.since}),
         a as (select count(*)::int as n, min(failed_at) as oldest from sign_in_failures where address_key = ${p.addressKey} and failed_at >= ${p.since}),
         ins as (
           insert into sign_in_failures (id, email_key, address_key, failed_at)
           select ${p.id}::text, ${p.emailKey}::text, ${p.addressKey}::text, ${p.at}::timestamptz from e, a where e.n < ${p.emailLimit} and a.n < ${p.addressLimit}
           returning 1
         )
    select e.n as e_count, e.oldest as e_oldest, a.n as a_count, a.oldest as a_oldest, (select count(*)::int from ins) as admitted from e, a`;
  return { admitted: (row?.admitted ?? 0) > 0, email: { count: row?.e_count ?? 0, oldest: row?.e_oldest ?? null }, address: { count: row?.a_count ?? 0, oldest: row?.a_oldest ?? null } };
}

/** Deletes one attempt (it succeeded: its place is given back). */
export async function signInFailuresDelete(sql: SqlClient, p: { id: string }): Promise<void> {
  await sql`delete from sign_in_failures where id = ${p.id}`;
}

/** Deletes attempts made before `before`. */
export async function signInFailuresPurgeBefore(sql: SqlClient, p: { before: Date }): Promise<number> {
  const rows = await sql`delete from sign_in_failures where failed_at < ${p.before} returning id`;
  return rows.length;
}

/** The person's sealed MFA secrets and last step, or null. */
export async function personsLoadMfa(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<PersonMfa | null> {
  const [row] = await sql<{ totp_secret_sealed: string | null; totp_pending_sealed: string | null; totp_last_step: number | null }[]>`
    select totp_secret_sealed, totp_pending_sealed, totp_last_step from persons where workspace_id = ${p.workspaceId} and id = ${p.personId}`;
  return row ? { totpSecretSealed: row.totp_secret_sealed, totpPendingSealed: row.totp_pending_sealed, totpLastStep: row.totp_last_step === null ? null : Number(row.totp_last_step) } : null;
}

/** Keeps a pending (sealed) TOTP secret. */
export async function personsSetPendingTotp(sql: SqlClient, p: { workspaceId: string; personId: string; sealed: string }): Promise<void> {
  await sql`update persons set totp_pending_sealed = ${p.sealed} where workspace_id = ${p.workspaceId} and id = ${p.personId}`;
}

/**
 * The CTEs `dropped` and `added` of a statement that replaces the recovery codes of the person
 * its CTE `source` returns (workspace_id, id): the old codes deleted, one row per hash inserted.
 */
function newRecoveryCodes(sql: SqlClient, source: "enabled" | "person", p: { now: Date; recoveryCodeHashes: readonly string[] }) {
  const e = sql(source);
  return sql`dropped as (
      delete from person_recovery_codes r using ${e} e where r.workspace_id = e.workspace_id and r.person_id = e.id
    ), added as (
      insert into person_recovery_codes (workspace_id, person_id, code_hash, created_at)
      select e.workspace_id, e.id, h, ${p.now}::timestamptz from ${e} e, unnest(${sql.array([...p.recoveryCodeHashes])}::text[]) as h
    )`;
}

/** Turns MFA on (guarded: off and a secret pending) and replaces the recovery codes, in one statement. */
export async function personsConfirmTotp(sql: SqlClient, p: { workspaceId: string; personId: string; step: number; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
  const rows = await sql`
    with enabled as (
      update persons
      set totp_secret_sealed = totp_pending_sealed, totp_pending_sealed = null, mfa_enabled_at = ${p.now}, totp_last_step = ${p.step}
      where workspace_id = ${p.workspaceId} and id = ${p.personId} and mfa_enabled_at is null and totp_pending_sealed is not null
      returning workspace_id, id
    ), ${newRecoveryCodes(sql, "enabled", p)}
    select id from enabled`;
  return rows.length === 1;
}

/** Turns MFA off and drops the recovery codes, in one statement; true when it was on. */
export async function personsDisableTotp(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<boolean> {
  const rows = await sql`
    with disabled as (
      update persons
      set totp_secret_sealed = null, totp_pending_sealed = null, mfa_enabled_at = null, totp_last_step = null
      where workspace_id = ${p.workspaceId} and id = ${p.personId} and mfa_enabled_at is not null
      returning workspace_id, id
    ), dropped as (
      delete from person_recovery_codes r using disabled d where r.workspace_id = d.workspace_id and r.person_id = d.id
    )
    select id from disabled`;
  return rows.length === 1;
}

/** Replaces the recovery codes of a person with MFA on, in one statement; true when MFA was on. */
export async function recoveryCodesReplace(sql: SqlClient, p: { workspaceId: string; personId: string; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
  const rows = await sql`
    with person as (
      select workspace_id, id from persons where workspace_id = ${p.workspaceId} and id = ${p.personId} and mfa_enabled_at is not null for update
    ), ${newRecoveryCodes(sql, "person", p)}
    select id from person`;
  return rows.length === 1;
}

/** Records TOTP step `step` when it is later than the last one accepted (compare-and-set). */
export async function personsUseTotpStep(sql: SqlClient, p: { workspaceId: string; personId: string; step: number }): Promise<boolean> {
  const rows = await sql`
    update persons set totp_last_step = ${p.step}
    where workspace_id = ${p.workspaceId} and id = ${p.personId} and totp_secret_sealed is not null
      and (totp_last_step is null or totp_last_step < ${p.step})
    returning id`;
  return rows.length === 1;
}

/** Spends an unused recovery code. */
export async function recoveryCodesUse(sql: SqlClient, p: { workspaceId: string; personId: string; codeHash: string; now: Date }): Promise<boolean> {
  const rows = await sql`
    update person_recovery_codes set used_at = ${p.now}
    where workspace_id = ${p.workspaceId} and person_id = ${p.personId} and code_hash = ${p.codeHash} and used_at is null
    returning code_hash`;
  return rows.length === 1;
}

/** Unused recovery codes of the person. */
export async function recoveryCodesCount(sql: SqlClient, p: { workspaceId: string; personId: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from person_recovery_codes where workspace_id = ${p.workspaceId} and person_id = ${p.personId} and used_at is null`;
  return row?.n ?? 0;
}
