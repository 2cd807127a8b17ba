import type { AiAccount, Credential, Workspace } from "./model.ts";

/** An AI account on the wire (DESIGN §2). */
export interface AiAccountView {
  id: string;
  friendly_name: string;
  state: AiAccount["state"];
  created_at: string;
  /** When one of its credentials last authenticated a request (at most a minute old), or null. */
  last_active_at: string | null;
}

/** A credential on the wire as issue and rotate return it (DESIGN §2). Never the token or its hash. */
export interface CredentialView {
  id: string;
  ai_account_id: string;
  tier: Credential["tier"];
  scopes: string[];
  name: string;
  state: Credential["state"];
  expires_at: string | null;
  project_id: string | null;
  created_at: string;
}

/** A credential on the read routes: the issue view plus its revocation and rotation links. */
export interface CredentialDetailView extends CredentialView {
  revoked_at: string | null;
  rotated_from_id: string | null;
  rotated_to_id: string | null;
  /** When it last authenticated a request (at most a minute old), or null. */
  last_used_at: string | null;
}

/** A workspace on the wire. */
export interface WorkspaceView {
  id: string;
  name: string;
  state: Workspace["state"];
  created_at: string;
}

/** The wire view of an AI account. */
export function aiAccountView(a: AiAccount): AiAccountView {
  return { id: a.id, friendly_name: a.friendlyName, state: a.state, created_at: a.createdAt.toISOString(), last_active_at: a.lastActiveAt?.toISOString() ?? null };
}

/** The wire view of a credential as issue and rotate return it. */
export function credentialView(c: Credential): CredentialView {
  return {
    id: c.id,
    ai_account_id: c.aiAccountId,
    tier: c.tier,
    scopes: [...c.scopes],
    name: c.name,
    state: c.state,
    expires_at: c.expiresAt?.toISOString() ?? null,
    project_id: c.projectId,
    created_at: c.createdAt.toISOString(),
  };
}

/** The wire view of a credential on the read routes. */
export function credentialDetailView(c: Credential): CredentialDetailView {
  return { ...credentialView(c), revoked_at: c.revokedAt?.toISOString() ?? null, rotated_from_id: c.rotatedFromId, rotated_to_id: c.rotatedToId, last_used_at: c.lastUsedAt?.toISOString() ?? null };
}

/** The wire view of a workspace. */
export function workspaceView(w: Workspace): WorkspaceView {
  return { id: w.id, name: w.name, state: w.state, created_at: w.createdAt.toISOString() };
}
