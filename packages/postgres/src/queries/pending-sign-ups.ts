import type { PendingSignUp } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

interface PendingSignUpRow {
  id: string;
  token_hash: string;
  email: string;
  password_hash: string;
  workspace_name: string;
  display_name: string | null;
  created_at: Date;
  expires_at: Date;
}

function toPendingSignUp(r: PendingSignUpRow): PendingSignUp {
  return { id: r.id, tokenHash: r.token_hash, email: r.email, passwordHash: r.password_hash, workspaceName: r.workspace_name, displayName: r.display_name, createdAt: r.created_at, expiresAt: r.expires_at };
}

/** Inserts a pending sign-up. */
export async function pendingSignUpsInsert(sql: SqlClient, p: { signUp: PendingSignUp }): Promise<void> {
  const s = p.signUp;
  await sql`
    insert into pending_sign_ups (id, token_hash, email, password_hash, workspace_name, display_name, created_at, expires_at)
    values (${s.id}, ${s.tokenHash}, ${s.email}, ${s.passwordHash}, ${s.workspaceName}, ${s.displayName}, ${s.createdAt}, ${s.expiresAt})`;
}

/** Pending sign-ups of the email created at or after `since` (pending_sign_ups_email_idx). */
export async function pendingSignUpsCountSince(sql: SqlClient, p: { email: string; since: Date }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from pending_sign_ups where email = ${p.email} and created_at >= ${p.since}`;
  return row?.n ?? 0;
}

/**
 * Takes an unexpired pending sign-up by its token hash: one conditional DELETE. Of two concurrent
 * takes, the second waits for the first's row lock and then finds no row (READ COMMITTED
 * re-checks the deleted row); a rolled-back transaction leaves the row in place.
 */
export async function pendingSignUpsTake(sql: SqlClient, p: { tokenHash: string; now: Date }): Promise<PendingSignUp | null> {
  const [row] = await sql<PendingSignUpRow[]>`
    delete from pending_sign_ups where token_hash = ${p.tokenHash} and expires_at > ${p.now}
    returning *`;
  return row ? toPendingSignUp(row) : null;
}

/** Deletes pending sign-ups that expired before `before` (the sweep). */
export async function pendingSignUpsPurgeExpiredBefore(sql: SqlClient, p: { before: Date }): Promise<number> {
  const rows = await sql`delete from pending_sign_ups where expires_at < ${p.before} returning id`;
  return rows.length;
}
