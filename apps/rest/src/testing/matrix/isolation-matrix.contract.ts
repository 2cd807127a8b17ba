import { OPERATIONS } from "@agentq/core";
import type { Operation } from "@agentq/core";
import { Value } from "@sinclair/typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildIsolationWorld } from "./isolation-world.ts";
import type { IsolationWorld, MatrixTarget } from "./isolation-world.ts";
import { AIMED_FIELDS, plausibleInput } from "./plausible-input.ts";
import { callOperationRoute, hasBody, matrixCall, pathParamsOf } from "./route-request.ts";
import type { MatrixResult } from "./route-request.ts";

// Catalogue-driven: every operation, whatever area added it, is called by workspace B's
// principals (credentials, and an owner's session for the people's operations) aimed at
// workspace A's records, and must neither show nor change them. Shared by
// the in-memory run (apps/rest) and the PostgreSQL run (apps/server).

/** One of A's records a path parameter can name. */
export interface NamedResource {
  /** What it is, for messages ("leased message", "dead letter", ...). */
  label: string;
  id: string;
}

/** A's records each path parameter can name. Add one here when a new kind of record appears. */
export const PATH_FIXTURES: Readonly<Record<string, (a: IsolationWorld["a"]) => NamedResource[]>> = {
  message_id: (a) => [{ label: "leased message", id: a.leasedMessageId }, { label: "dead letter", id: a.deadLetterId }],
  thread_id: (a) => [{ label: "thread (of the leased message)", id: a.leasedMessageId }],
  ai_account_id: (a) => [{ label: "worker account", id: a.worker.id }, { label: "admin account", id: a.admin.accountId }],
  credential_id: (a) => [{ label: "worker credential", id: a.worker.credentialId }, { label: "admin credential", id: a.admin.credentialId }],
  webhook_id: (a) => [{ label: "webhook", id: a.webhookId }],
  policy_id: (a) => [{ label: "policy", id: a.policyId }],
  project_id: (a) => [{ label: "project", id: a.projectId }],
  decision_id: (a) => [{ label: "decision", id: a.decisionId }, { label: "correction (chain tip)", id: a.correctionId }],
  session_id: (a) => [{ label: "build session", id: a.sessionId }],
  backlog_item_id: (a) => [{ label: "backlog item", id: a.backlogItemId }],
  lesson_id: (a) => [{ label: "lesson", id: a.lessonId }],
  lesson_candidate_id: (a) => [{ label: "lesson candidate", id: a.candidateId }],
  rule_id: (a) => [{ label: "rule", id: a.ruleId }],
  import_id: (a) => [{ label: "markdown import", id: a.importId }],
  connection_id: (a) => [{ label: "connection", id: a.connectionId }],
  person_id: (a) => [{ label: "viewer", id: a.viewerPersonId }, { label: "owner (signed in)", id: a.owner.personId }],
};

/** Path parameters that name no workspace record (global catalogues): the reason, and a value to call with. */
const GLOBAL_PATH_PARAMS: Readonly<Record<string, { reason: string; value: string }>> = {
  name: { reason: "template names are global (the template catalogue is shared by every workspace)", value: "note" },
  notice_id: {
    reason:
      "a notice is filed by the public about a message and disclosed to the affected workspace only (apps/server/src/notices.process.test.ts, notice-routes.test.ts); " +
      "its one caller operation here, the owner's counter-notice, needs a fresh step-up, which B's owner has not, so B is refused before any notice is read",
    value: "01JZZZZZZZZZZZZZZZZZZZZZZZ",
  },
};

/** `*_id` input fields that name no record of a workspace, with the reason. */
const FREE_FORM_ID_FIELDS: Readonly<Record<string, string>> = {
  correlation_id: "the sender's own free-form correlation label",
};

/**
 * Operations without path parameters whose refused requests answer 2xx with a result per item:
 * the check that each item was refused.
 */
const ITEM_RESULTS: Readonly<Record<string, (body: any) => unknown[]>> = {
  ack_batch: (body) => body.results,
};

/** Every operation with a caller: a credential's, or a person's session's. */
const CALLER_OPERATIONS = OPERATIONS.filter((op) => op.auth.kind !== "public");
const workspaceParams = (op: Operation) => pathParamsOf(op).filter((p) => !(p in GLOBAL_PATH_PARAMS));
const AIMED_OPERATIONS = CALLER_OPERATIONS.filter((op) => workspaceParams(op).length > 0 && workspaceParams(op).every((p) => p in PATH_FIXTURES));
/** Operations whose path names no workspace record (none, or only global ones such as a template name). */
const UNPARAMETERISED = CALLER_OPERATIONS.filter((op) => workspaceParams(op).length === 0);
/**
 * Body fields that name another record (DESIGN §2c: one of another workspace's is 404
 * SVC_RESOURCE_NOT_FOUND, as an unknown id is). The lease is left out: it guards the call on a
 * message rather than naming a record, and a wrong one has the lease codes of the spec.
 */
const referenceFields = (op: Operation): string[] =>
  hasBody(op) ? Object.keys(op.input.properties).filter((f) => AIMED_FIELDS.includes(f) && f !== "lease_id" && !pathParamsOf(op).includes(f) && !(op.http.query ?? []).includes(f)) : [];
/** Operations with a body reference whose path, if any, B can fill with records of its own. */
const REFERENCING_OPERATIONS = CALLER_OPERATIONS.filter((op) => referenceFields(op).length > 0 && workspaceParams(op).every((p) => p in PATH_FIXTURES));
/** Path values of global parameters. */
const globalPathValues = (op: Operation) => Object.fromEntries(pathParamsOf(op).flatMap((p) => (p in GLOBAL_PATH_PARAMS ? [[p, GLOBAL_PATH_PARAMS[p]?.value ?? ""]] : [])));

/**
 * The isolation matrix against `makeTarget`'s service: workspace A gets one record of each
 * kind a path parameter can name; B's principals call every operation of the catalogue aimed at
 * them and must get 404 or 403 (routes with a path parameter), never anything of A's in an
 * answer, and never a change to A's records.
 */
export function describeIsolationMatrix(label: string, makeTarget: () => Promise<MatrixTarget>): void {
  let target: MatrixTarget;
  let w: IsolationWorld;
  let before: Record<string, unknown>;

  /**
   * B's principals that get past `op`'s auth rule: its admin on administrative routes, its
   * operational agent (every operational scope) on operational routes, and its admin there too
   * when the route needs no scope or waives it for administrative credentials; its owner's
   * session on the operations for a person's session.
   */
  function bCallers(op: Operation): { label: string; authorization?: string; headers?: Readonly<Record<string, string>> }[] {
    const admin = { label: "B admin", authorization: w.b.admin.authorization };
    const operational = { label: "B operational", authorization: w.b.operational.authorization };
    if (op.auth.kind === "person") return [{ label: "B owner session", headers: w.b.records.owner.headers }];
    if (op.auth.kind !== "credential") return [];
    if (op.auth.tier === "administrative") return [admin];
    return op.auth.scope === null || op.auth.scopeWaivedForTier === "administrative" ? [operational, admin] : [operational];
  }

  /**
   * A's values B has itself put in a request so far: an answer that repeats them (an error's
   * details, B's own audit row of the refused call) tells B nothing it did not send.
   */
  const sentByB = new Set<string>();

  /** A's secrets that occur in `res` (body or headers), not counting those B has sent itself. */
  function leaked(res: MatrixResult, request: string): string[] {
    for (const s of w.a.secrets) if (request.includes(s)) sentByB.add(s);
    return w.a.secrets.filter((s) => !sentByB.has(s) && (res.text.includes(s) || [...res.headers.values()].some((v) => v.includes(s))));
  }

  /** Everything A can see of its own records, through A's credentials. */
  async function snapshotOfA(): Promise<Record<string, unknown>> {
    const { admin, worker, sender } = w.a;
    const get = async (authorization: string, path: string) => {
      const res = await matrixCall(w.client, "GET", path, { authorization });
      return { status: res.status, body: res.body as unknown };
    };
    const getAsOwner = async (path: string) => {
      const res = await matrixCall(w.client, "GET", path, { headers: w.a.owner.headers });
      return { status: res.status, body: res.body as unknown };
    };
    return {
      accounts: await get(admin.authorization, "/v1/ai-accounts?limit=100"),
      worker: await get(admin.authorization, `/v1/ai-accounts/${worker.id}`),
      credentials: await get(admin.authorization, "/v1/credentials?limit=100"),
      workerCredential: await get(admin.authorization, `/v1/credentials/${worker.credentialId}`),
      workerMe: await get(worker.authorization, "/v1/me"),
      senderMe: await get(sender.authorization, "/v1/me"),
      workspace: await get(admin.authorization, "/v1/workspaces/me"),
      leasedMessage: await get(worker.authorization, `/v1/messages/${w.a.leasedMessageId}`),
      workerMessages: await get(worker.authorization, "/v1/messages?limit=100"),
      deadLetters: await get(admin.authorization, "/v1/dead-letters?limit=100"),
      webhook: await get(admin.authorization, `/v1/webhooks/${w.a.webhookId}`),
      webhooks: await get(admin.authorization, "/v1/webhooks?limit=100"),
      deliveries: await get(admin.authorization, `/v1/webhooks/${w.a.webhookId}/deliveries`),
      policies: await get(worker.authorization, "/v1/policies"),
      project: await get(sender.authorization, `/v1/projects/${w.a.projectId}`),
      projects: await get(sender.authorization, "/v1/projects"),
      decision: await get(sender.authorization, `/v1/decision-log/${w.a.decisionId}`),
      decisions: await get(sender.authorization, "/v1/decision-log"),
      session: await get(sender.authorization, `/v1/build-sessions/${w.a.sessionId}`),
      backlogItem: await get(sender.authorization, `/v1/backlog/${w.a.backlogItemId}`),
      backlogCounts: await get(sender.authorization, "/v1/backlog/count-by-status"),
      lesson: await get(sender.authorization, `/v1/lessons/${w.a.lessonId}`),
      lessons: await get(sender.authorization, "/v1/lessons"),
      candidate: await get(sender.authorization, `/v1/lesson-candidates/${w.a.candidateId}`),
      candidates: await get(sender.authorization, "/v1/lesson-candidates?status=any"),
      rule: await get(sender.authorization, `/v1/rules/${w.a.ruleId}`),
      rules: await get(sender.authorization, "/v1/rules?status=any"),
      import: await get(sender.authorization, `/v1/session-state/imports/${w.a.importId}`),
      importRows: await get(sender.authorization, `/v1/session-state/imports/${w.a.importId}/rows`),
      // A fixed window: the default one moves with the clock.
      usage: await get(sender.authorization, "/v1/usage?group_by=session&period=month&since=2000-01-01T00:00:00.000Z&until=2030-01-01T00:00:00.000Z"),
      connections: await get(admin.authorization, "/v1/connections"),
      people: await getAsOwner("/v1/people"),
    };
  }

  beforeAll(async () => {
    target = await makeTarget();
    w = await buildIsolationWorld(target);
    before = await snapshotOfA();
  });
  afterAll(async () => {
    await target?.close();
  });

  describe(`isolation matrix over the whole catalogue (${label})`, () => {
    it("knows how to fill every path parameter of every operation", () => {
      const missing = CALLER_OPERATIONS.flatMap((op) => pathParamsOf(op).filter((p) => !(p in PATH_FIXTURES) && !(p in GLOBAL_PATH_PARAMS)).map((p) => `${op.name}: {${p}}`));
      expect(
        missing,
        "The isolation matrix cannot fill these path parameters. Create one of A's records of that kind in apps/rest/src/testing/matrix/isolation-world.ts " +
          "and name it in PATH_FIXTURES (apps/rest/src/testing/matrix/isolation-matrix.contract.ts), or, if the parameter names no workspace record, add it to GLOBAL_PATH_PARAMS with the reason.",
      ).toEqual([]);
    });

    it("knows, for every *_id input field outside the path, which of A's records to aim it at (or that it names none)", () => {
      const unknown = CALLER_OPERATIONS.flatMap((op) =>
        Object.keys(op.input.properties)
          .filter((f) => f.endsWith("_id") && !pathParamsOf(op).includes(f) && !AIMED_FIELDS.includes(f) && !(f in FREE_FORM_ID_FIELDS))
          .map((f) => `${op.name}: ${f}`),
      );
      expect(
        unknown,
        "The isolation matrix does not aim these input fields at A's records. Give each a value naming one of A's records in knownFields " +
          "(apps/rest/src/testing/matrix/plausible-input.ts, and list it in AIMED_FIELDS), or, if it names no workspace record, add it to FREE_FORM_ID_FIELDS with the reason.",
      ).toEqual([]);
    });

    it("A's snapshot is readable by A (the fixtures exist)", () => {
      for (const [k, v] of Object.entries(before)) expect((v as { status: number }).status, k).toBe(200);
    });

    describe.each(AIMED_OPERATIONS.map((op) => [`${op.http.method} ${op.http.path} (${op.name})`, op] as const))("%s", (_label, op) => {
      const params = workspaceParams(op);
      // One case per path parameter, over each of A's records it can name (others get their first).
      it.each(params)("B cannot see or touch A's records named by {%s}: 404 or 403, nothing of A's in the answer", async (param) => {
        const resources = PATH_FIXTURES[param]?.(w.a) ?? [];
        expect(resources.length).toBeGreaterThan(0);
        for (const resource of resources) {
          const pathValues: Record<string, string> = {};
          for (const p of pathParamsOf(op)) pathValues[p] = p === param ? resource.id : p in GLOBAL_PATH_PARAMS ? (GLOBAL_PATH_PARAMS[p]?.value ?? "") : (PATH_FIXTURES[p]?.(w.a)[0]?.id ?? "");
          const input = plausibleInput(op, w.a);
          const full = { ...input, ...pathValues };
          expect(Value.Check(op.input, full), `the matrix's input for ${op.name} is not valid (${JSON.stringify([...Value.Errors(op.input, full)].slice(0, 3).map((e) => `${e.path} ${e.message}`))}): add an override in apps/rest/src/testing/matrix/plausible-input.ts`).toBe(true);
          for (const caller of bCallers(op)) {
            const res = await callOperationRoute(w.client, op, { ...caller, pathValues, input });
            const request = JSON.stringify({ pathValues, input });
            const what = `${caller.label} ${op.http.method} ${op.http.path} on A's ${resource.label} -> ${res.status} ${res.text}`;
            expect([403, 404], what).toContain(res.status);
            expect(leaked(res, request), what).toEqual([]);
          }
        }
      });
    });

    describe.each(UNPARAMETERISED.map((op) => [`${op.http.method} ${op.http.path} (${op.name})`, op] as const))("%s", (_label, op) => {
      it("called by B (aimed at A's records where a field can name one) shows nothing of A's and changes nothing of A's", async () => {
        const input = plausibleInput(op, w.a);
        const request = JSON.stringify(input);
        const aimedAtA = w.a.secrets.some((s) => request.includes(s));
        for (const caller of bCallers(op)) {
          const res = await callOperationRoute(w.client, op, { ...caller, pathValues: globalPathValues(op), input });
          const what = `${caller.label} ${op.http.method} ${op.http.path} ${request} -> ${res.status} ${res.text}`;
          expect(leaked(res, request), what).toEqual([]);
          if (aimedAtA && op.mutates && res.status < 300) {
            const items = ITEM_RESULTS[op.name];
            expect(items, `${what}: a mutation aimed at A's records succeeded`).toBeDefined();
            const results = items?.(res.body) ?? [];
            expect(results.length, what).toBeGreaterThan(0);
            for (const item of results) expect([403, 404], what).toContain((item as { status: number }).status);
          }
        }
        // The same without the fields aimed at A: plain lists of B's own data.
        if (op.http.method === "GET") {
          for (const caller of bCallers(op)) {
            const res = await callOperationRoute(w.client, op, { ...caller, pathValues: globalPathValues(op) });
            expect(leaked(res, ""), `${caller.label} GET ${op.http.path} -> ${res.text}`).toEqual([]);
          }
        }
      });
    });

    describe.each(REFERENCING_OPERATIONS.map((op) => [`${op.http.method} ${op.http.path} (${op.name})`, op] as const))("%s", (_label, op) => {
      // B's own records everywhere (path and body), but for one body field naming A's record; the
      // other optional references are left out (some exclude each other). In the path, the last
      // fixture of a kind is B's record still open to change (a decision chain's tip).
      it.each(referenceFields(op))("on B's own records, with A's record in %s: 404 SVC_RESOURCE_NOT_FOUND, nothing of A's in the answer", async (field) => {
        const own = w.b.records;
        const pathValues: Record<string, string> = {};
        for (const p of pathParamsOf(op)) pathValues[p] = p in GLOBAL_PATH_PARAMS ? (GLOBAL_PATH_PARAMS[p]?.value ?? "") : (PATH_FIXTURES[p]?.(own).at(-1)?.id ?? "");
        const required = new Set(op.input.required ?? []);
        const base = Object.fromEntries(Object.entries(plausibleInput(op, own)).filter(([f]) => f === field || required.has(f) || !referenceFields(op).includes(f)));
        const input = { ...base, [field]: plausibleInput(op, w.a)[field] };
        const full = { ...input, ...pathValues };
        expect(Value.Check(op.input, full), `the matrix's input for ${op.name} is not valid (${JSON.stringify([...Value.Errors(op.input, full)].slice(0, 3).map((e) => `${e.path} ${e.message}`))})`).toBe(true);
        for (const caller of bCallers(op)) {
          const res = await callOperationRoute(w.client, op, { ...caller, pathValues, input });
          const request = JSON.stringify({ pathValues, input });
          const what = `${caller.label} ${op.http.method} ${op.http.path} with A's ${field} -> ${res.status} ${res.text}`;
          expect(res.status, what).toBe(404);
          expect(res.body?.error?.code, what).toBe("SVC_RESOURCE_NOT_FOUND");
          expect(leaked(res, request), what).toEqual([]);
        }
      });
    });

    it("left every record of A as it was (and A's lease still holds)", async () => {
      expect(await snapshotOfA()).toEqual(before);
      const ack = await matrixCall(w.client, "POST", `/v1/messages/${w.a.leasedMessageId}/ack`, { authorization: w.a.worker.authorization, body: { lease_id: w.a.leaseId } });
      expect(ack.status, ack.text).toBe(200);
    });
  });
}
