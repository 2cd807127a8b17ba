import type { PersonPrincipal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { PEOPLE_LIMITS } from "./people-settings.ts";
import { findLiveSession } from "./sessions.ts";

/** The one message of a refused session: unknown, ended, expired and idle look the same. */
export const SESSION_UNAUTHENTICATED_MESSAGE = "The request does not carry a valid session.";

/** The refusal of a missing or unusable session. */
export function sessionUnauthenticated(): DomainError {
  return new DomainError("SVC_UNAUTHENTICATED", SESSION_UNAUTHENTICATED_MESSAGE);
}

/**
 * Turns a session cookie's value into the person's principal: the live session (not ended, not
 * past its absolute end, not idle longer than the idle timeout), the person and their workspace
 * read fresh on every request. The session's lastSeenAt moves on at most once a minute.
 * The workspace's state is not checked here: a closed or frozen workspace is refused per
 * operation (`personWorkspaceRefusal`), since a closed workspace's owner may still sign in.
 * @throws DomainError SVC_UNAUTHENTICATED
 */
export async function authenticateSession(deps: Pick<CoreDeps, "stores" | "secrets" | "clock" | "people">, token: string): Promise<PersonPrincipal> {
  const now = deps.clock.now();
  const session = await findLiveSession(deps, token, { stage: "active", now, ...(deps.people === undefined ? {} : { settings: deps.people.settings }) });
  if (session === null) throw sessionUnauthenticated();
  const context = await deps.stores.people.loadSessionContext({ workspaceId: session.workspaceId, personId: session.personId });
  if (context === null) throw sessionUnauthenticated();
  if (now.getTime() - session.lastSeenAt.getTime() >= PEOPLE_LIMITS.touchEveryMs) {
    await deps.stores.personSessions.touch({ workspaceId: session.workspaceId, sessionId: session.id, lastSeenAt: now });
  }
  return { kind: "person", workspace: context.workspace, person: context.person, session };
}
