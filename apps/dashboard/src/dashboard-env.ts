import type { Principal } from "@agentq/core";
/** Per-request values the dashboard's middleware sets for its pages. */
export interface DashboardVariables {
  /** This request's id (X-Request-Id), shown on error pages and written to audit rows. */
  requestId: string;
  /** The signed-in person (a session cookie), set by the session middleware on pages that need one. */
  principal?: Principal;
  /** The Set-Cookie values of the session intents of the operations this request ran (`runOperation`). */
  sessionCookies?: string[];
}

/** The Hono environment of the dashboard app. */
export interface DashboardEnv {
  Variables: DashboardVariables;
}

/** Where the dashboard logs server faults (the server's pino logger fits). */
export interface DashboardLogger {
  error(fields: Record<string, unknown>, message: string): void;
}
