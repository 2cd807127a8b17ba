import { aiAccountView, credentialView } from "../access/access-views.ts";
import type { PersonPrincipal } from "../access/model.ts";
import { exportedAuditRowView } from "../audit/audit-row-view.ts";
import type { CoreDeps } from "../deps.ts";
import { shownState } from "../messaging/message.ts";
import { envelopeView } from "../messaging/message-views.ts";
import { personAuditEntry } from "../people/people-audit.ts";
import { peopleListItem } from "../people/manage-people.ts";
import { personView, personWorkspaceView } from "../people/people-views.ts";
import { administers } from "../people/person-access.ts";
import { workspaceLimits } from "../plans/workspace-limits.ts";
import { policyView } from "../policies/workspace-policies.ts";
import { backlogView } from "../session-state/backlog/backlog.ts";
import { sessionView } from "../session-state/build-sessions/build-sessions.ts";
import { decisionView } from "../session-state/decision-log/decision-log.ts";
import type { Project } from "../session-state/projects/project.ts";
import { projectView } from "../session-state/projects/projects.ts";
import { webhookView } from "../webhooks/webhook-views.ts";
import { payloadDeletionAt } from "./closed-refusal.ts";

/** The format name of GET /v1/me/export documents. */
export const EXPORT_FORMAT = "agentq.export.v1";

const PAGE = 200;

/** Pages through a keyset list: `page(after)` returns up to PAGE + 1 items; `key` is the next `after`. */
async function* keyset<T>(page: (after: string | null, limit: number) => Promise<T[]>, key: (item: T) => string): AsyncGenerator<T> {
  let after: string | null = null;
  for (;;) {
    const items = await page(after, PAGE);
    for (const item of items.slice(0, PAGE)) yield item;
    if (items.length <= PAGE) return;
    after = key(items[PAGE - 1]!);
  }
}

/** Pages through an offset list. */
async function* offsets<T>(page: (offset: number, limit: number) => Promise<T[]>): AsyncGenerator<T> {
  for (let offset = 0; ; offset += PAGE) {
    const items = await page(offset, PAGE);
    for (const item of items.slice(0, PAGE)) yield item;
    if (items.length < PAGE) return;
  }
}

/** `"name":[item,item,...]` of a JSON object, one chunk per item. */
async function* array<T>(name: string, items: AsyncIterable<T>, view: (item: T) => unknown, first = false): AsyncGenerator<string> {
  yield `${first ? "" : ","}${JSON.stringify(name)}:[`;
  let n = 0;
  for await (const item of items) yield `${n++ === 0 ? "" : ","}${JSON.stringify(await view(item))}`;
  yield "]";
}

/**
 * GET /v1/me/export (DESIGN §2b): the signed-in person's data and everything of their workspace
 * as one JSON document, produced in chunks as it is read (page by page, so a large workspace is
 * never held in memory): `format`, `exported_at`, `person`, `workspace` (with `closed_at` and
 * `payload_deletion_at` when closed), `people` (owners and admins only: others' addresses are
 * theirs to see), `ai_accounts`, `credentials` (never a token or its hash), `messages` (envelope,
 * state, timestamps and payload), `webhooks` (never a signing secret), `policies` (current
 * versions), `session_state` (`projects`, `decisions`, `build_sessions`, `backlog`) and
 * `audit_chain` (the sealed chain, as GET /v1/audit-log/chain and `pnpm audit:verify` read it).
 * The pages are read one after another, not as one snapshot: rows written meanwhile may or may
 * not appear. Call `recordExport` first.
 */
export async function* exportDocument(deps: Pick<CoreDeps, "stores" | "clock">, actor: PersonPrincipal): AsyncGenerator<string> {
  const { stores } = deps;
  const workspaceId = actor.workspace.id;
  const now = deps.clock.now();
  const { plan } = await workspaceLimits(deps, workspaceId);
  const closedAt = actor.workspace.closedAt ?? null;
  const workspace = {
    ...personWorkspaceView(actor.workspace, plan),
    created_at: actor.workspace.createdAt.toISOString(),
    closed_at: closedAt?.toISOString() ?? null,
    payload_deletion_at: closedAt === null ? null : payloadDeletionAt(closedAt).toISOString(),
  };
  yield `{"format":${JSON.stringify(EXPORT_FORMAT)},"exported_at":${JSON.stringify(now.toISOString())},"person":${JSON.stringify(personView(actor.person))},"workspace":${JSON.stringify(workspace)}`;
  if (administers(actor.person.role)) yield `,"people":${JSON.stringify((await stores.workspacePeople.list({ workspaceId })).map(peopleListItem))}`;
  yield* array("ai_accounts", keyset((after, limit) => stores.accounts.list({ workspaceId, states: null, after, limit }), (a) => a.id), aiAccountView);
  yield* array("credentials", keyset((after, limit) => stores.credentials.list({ workspaceId, aiAccountId: null, after, limit }), (c) => c.id), credentialView);
  yield* array(
    "messages",
    keyset((after, limit) => stores.messages.listForParticipant({ workspaceId, accountId: null, role: "any", state: null, after, limit }), (m) => m.id),
    (m) => ({
      ...envelopeView(m),
      state: shownState(m, now),
      acknowledged_at: m.acknowledgedAt?.toISOString() ?? null,
      dead_lettered_at: m.deadLetteredAt?.toISOString() ?? null,
      outcome_summary: m.outcomeSummary,
      payload: m.payload,
    }),
  );
  yield* array(
    "webhooks",
    keyset((after, limit) => stores.webhooks.list({ workspaceId, aiAccountId: null, after, limit }), (w) => w.id),
    async (w) => webhookView(w, await stores.webhooks.stats({ workspaceId, webhookId: w.id, recentDeadLimit: 0 }), now),
  );
  yield* array("policies", keyset((after, limit) => stores.policies.listCurrent({ workspaceId, accountId: "", after, limit }), (i) => i.policy.id), (i) => policyView(i.policy));
  yield `,"session_state":{`;
  const projects: Project[] = [];
  for await (const p of keyset((after, limit) => stores.projects.list({ workspaceId, state: null, onlyId: null, after, limit }), (p) => p.id)) projects.push(p);
  yield* array("projects", (async function* () { yield* projects; })(), projectView, true);
  const perProject = <T>(list: (projectId: string) => AsyncIterable<T>) =>
    (async function* () {
      for (const p of projects) for await (const item of list(p.id)) yield { project: p, item };
    })();
  yield* array(
    "decisions",
    perProject((projectId) => keyset((after, limit) => stores.decisions.list({ workspaceId, projectId, filters: { status: null, kind: null, tag: null, authorId: null, buildSessionId: null, since: null, until: null, file: null }, after, limit }), (d) => d.entry.id)),
    ({ item }) => decisionView(item),
  );
  yield* array(
    "build_sessions",
    perProject((projectId) =>
      keyset((after, limit) => stores.buildSessions.search({ workspaceId, projectId, filters: { state: null, liveness: null, aiAccountId: null, startedAfter: null, startedBefore: null, hasOpenPr: null, prUrl: null, chainRootId: null, q: null }, now, silenceMs: 0, after, limit }), (s) => s.id),
    ),
    ({ project, item }) => sessionView(item, project, now),
  );
  yield* array(
    "backlog",
    perProject((projectId) => offsets((offset, limit) => stores.backlog.search({ workspaceId, projectId, filters: { q: null, statuses: null, priorityMin: null, priorityMax: null, kind: null, label: null, assignee: null, unassigned: false, ready: false, createdAfter: null, updatedAfter: null }, sort: "oldest", offset, limit }))),
    ({ project, item }) => backlogView(item, project, now),
  );
  yield "}";
  yield* array(
    "audit_chain",
    (async function* () {
      for (let afterSeq = 0; ; ) {
        const rows = await stores.audit.readChain({ workspaceId, afterSeq, limit: PAGE });
        yield* rows;
        if (rows.length < PAGE) return;
        afterSeq = rows.at(-1)!.seq ?? afterSeq + rows.length;
      }
    })(),
    exportedAuditRowView,
  );
  yield "}";
}

/**
 * Writes the audit row of an export (`workspace.exported`, by the person) before the document is
 * produced, so that an export shows in the audit chain even when the download breaks off.
 */
export async function recordExport(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, actor: PersonPrincipal, ctx: { requestId: string | null }): Promise<void> {
  await deps.tx.run((stores) =>
    stores.audit.append({
      entry: { ...personAuditEntry(deps, { workspaceId: actor.workspace.id, occurredAt: deps.clock.now(), activity: "workspace.exported", subjectId: actor.workspace.id, actorPersonId: actor.person.id, requestId: ctx.requestId, details: {} }), subjectType: "workspace" },
    }),
  );
}
