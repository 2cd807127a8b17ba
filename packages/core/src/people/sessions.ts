import type { PersonSession, SessionStage } from "../access/model.ts";
import { constantTimeEqual } from "../access/token.ts";
import type { CoreDeps } from "../deps.ts";
import type { Stores } from "../ports.ts";
import { DEFAULT_PEOPLE_SETTINGS, PEOPLE_LIMITS, type PeopleSettings } from "./people-settings.ts";
import { hashSessionToken, isSessionToken, newSessionToken } from "./session-token.ts";

/** A session just opened: its record and its value (set as the cookie, shown nowhere else). */
export interface OpenedSession {
  session: PersonSession;
  token: string;
}

/**
 * Opens a session of the person in the caller's transaction: `active` (signed in; lasts the
 * idle and absolute timeouts; when `withMfa`, it counts as a step-up for five minutes) or
 * `pending_mfa` (password checked, second factor awaited; ten minutes).
 */
export async function openSession(
  deps: Pick<CoreDeps, "ids" | "secrets">,
  stores: Stores,
  p: { workspaceId: string; personId: string; stage: SessionStage; withMfa: boolean; now: Date; settings?: PeopleSettings },
): Promise<OpenedSession> {
  const settings = p.settings ?? DEFAULT_PEOPLE_SETTINGS;
  const token = newSessionToken();
  const lifetime = p.stage === "pending_mfa" ? PEOPLE_LIMITS.pendingMfaMs : settings.sessionAbsoluteMs;
  const session: PersonSession = {
    id: deps.ids.next(),
    workspaceId: p.workspaceId,
    personId: p.personId,
    stage: p.stage,
    tokenHash: hashSessionToken(deps.secrets.pepper, token),
    createdWithMfa: p.withMfa,
    createdAt: p.now,
    lastSeenAt: p.now,
    expiresAt: new Date(p.now.getTime() + lifetime),
    stepUpUntil: p.withMfa && p.stage === "active" ? new Date(p.now.getTime() + PEOPLE_LIMITS.stepUpMs) : null,
    endedAt: null,
  };
  await stores.personSessions.insert({ session });
  return { session, token };
}

/**
 * The live session behind a session value, of the given stage, or null: unknown, malformed,
 * ended, past its absolute end, or idle longer than the idle timeout (pending-MFA sessions have
 * only their ten-minute end).
 */
export async function findLiveSession(
  deps: Pick<CoreDeps, "stores" | "secrets">,
  token: string,
  p: { stage: SessionStage; now: Date; settings?: PeopleSettings },
): Promise<PersonSession | null> {
  if (!isSessionToken(token)) return null;
  const tokenHash = hashSessionToken(deps.secrets.pepper, token);
  const session = await deps.stores.personSessions.findByTokenHash({ tokenHash });
  if (session === null || !constantTimeEqual(session.tokenHash, tokenHash)) return null;
  if (session.stage !== p.stage || session.endedAt !== null) return null;
  const nowMs = p.now.getTime();
  if (session.expiresAt.getTime() <= nowMs) return null;
  const idleMs = (p.settings ?? DEFAULT_PEOPLE_SETTINGS).sessionIdleMs;
  if (p.stage === "active" && session.lastSeenAt.getTime() + idleMs <= nowMs) return null;
  return session;
}
