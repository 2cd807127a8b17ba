/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { isDomainError, toErrorEnvelope, type CoreDeps, type Principal } from "@agentq/core";
import type { Context } from "hono";
import type { Child } from "hono/jsx";
import { renderPage } from "./render-page.tsx";
import type { ShownError } from "./components/error-notice.tsx";
import { WAITING_COUNT_LIMIT, type NavKey, type Viewer } from "./components/layout.tsx";
import type { DashboardEnv } from "./dashboard-env.ts";
import { runOperation, type OperationCall, type OperationEdge } from "./run-operation.ts";
import type { StaticAsset, StaticAssets } from "./static-assets.ts";

/** An HTTP status a page is rendered with. */
export type PageStatus = 200 | 201 | 400 | 401 | 403 | 404 | 409 | 410 | 413 | 422 | 429 | 503;

/** What every route file of the dashboard gets: the deps, the files, and the few things all pages do. */
export interface PageKit {
  deps: CoreDeps;
  assets: StaticAssets;
  /** Renders a signed-in page in the layout, with the navigation showing `current`. */
  page: (c: Context<DashboardEnv>, p: { title: string; current?: NavKey | undefined; status?: PageStatus | undefined; scripts?: readonly StaticAsset[] | undefined }, body: Child) => Response | Promise<Response>;
  /**
   * Runs a catalogue operation (the REST/MCP executor) as the signed-in person, or anonymously for
   * a public one (sign-in, sign-up, password reset); its session intent sets the response's cookies.
   */
  run: <T>(c: Context<DashboardEnv>, call: OperationCall) => Promise<T>;
  /** A fresh Idempotency-Key for a form. */
  newKey: () => string;
}

/** The kit of one dashboard app. */
export function createPageKit(deps: CoreDeps, assets: StaticAssets, edge: OperationEdge): PageKit {
  return {
    deps,
    assets,
    page: async (c, p, body) => {
      const viewer = viewerOf(c.get("principal"));
      // The navigation's badge: what waits for a person's approval (one bounded count per page).
      if (viewer !== null) viewer.waitingApprovals = await deps.stores.messages.countHeldForApproval({ workspaceId: (c.get("principal") as Principal).workspace.id, limit: WAITING_COUNT_LIMIT });
      return renderPage(c, assets, { title: p.title, viewer, current: p.current, scripts: p.scripts }, body, p.status ?? 200);
    },
    run: async <T,>(c: Context<DashboardEnv>, call: OperationCall) => (await runOperation(deps, edge, c, call)) as T,
    newKey: () => deps.ids.next(),
  };
}

/** The header's view of the signed-in person (null when signed out or not a person). */
export function viewerOf(principal: Principal | undefined): Viewer | null {
  if (principal?.kind !== "person") return null;
  return { email: principal.person.email, displayName: principal.person.displayName, role: principal.person.role, workspaceName: principal.workspace.name };
}

/** A refusal as a page shows it, with the status to answer; a server fault is rethrown (the error page logs it). */
export function refusalOf(err: unknown, requestId: string): { error: ShownError; status: PageStatus } {
  if (!isDomainError(err)) throw err;
  const envelope = toErrorEnvelope(err, requestId);
  return { error: { code: envelope.error.code, message: envelope.error.message, details: envelope.error.details }, status: err.status as PageStatus };
}
