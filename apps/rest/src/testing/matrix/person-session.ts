import { openSession, requirePublicBaseUrl } from "@agentq/core";
import type { CoreDeps, Role } from "@agentq/core";
import { publicOriginOf, sessionCookies } from "@agentq/http";

/** A person of a matrix workspace with a live session: the headers a browser of theirs sends (the cookie, and the service's own Origin for writes). */
export interface MatrixPerson {
  personId: string;
  email: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * Adds a person with `role` to a workspace and opens a session for them, straight through the
 * stores in one transaction (no password, no mail: the matrix needs a session, not a sign-in).
 */
export async function openMatrixSession(deps: CoreDeps, p: { workspaceId: string; email: string; role: Role }): Promise<MatrixPerson> {
  const base = requirePublicBaseUrl(deps);
  const cookies = sessionCookies(base);
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const personId = deps.ids.next();
    const inserted = await stores.people.insert({ person: { id: personId, workspaceId: p.workspaceId, email: p.email, displayName: null, role: p.role, passwordHash: null, mfaEnabledAt: null, createdAt: now } });
    if (inserted.kind !== "created") throw new Error(`openMatrixSession: ${p.email} is taken`);
    const { token } = await openSession(deps, stores, { workspaceId: p.workspaceId, personId, stage: "active", withMfa: false, now });
    return { personId, email: p.email, headers: { Cookie: `${cookies.session}=${token}`, Origin: publicOriginOf(base) } };
  });
}
