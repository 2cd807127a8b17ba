import { Type } from "@sinclair/typebox";
import { LOCATION_TYPES, NOTICE_KINDS, NOTICE_STATES } from "./notice.ts";
import { NOTICE_INPUT_SCHEMA, NOTICE_KIND_SCHEMAS, NOTICE_LIMITS } from "./notice-elements.ts";
import { getNotice, listWorkspaceNotices } from "./notice-reads.ts";
import { submitNotice } from "./submit-notice.ts";
import { supplementNotice, withdrawNotice } from "./notifier-steps.ts";
import { NOTICE_TOKEN_PREFIX } from "./notice-token.ts";
import { COUNTER_NOTICE_INPUT_SCHEMA, fileCounterNoticeAsOwner } from "./counter-notice.ts";
import { defineOperation, defineReadOperation, definePeopleOperation } from "../operation.ts";

const NoticeIdParam = Type.String({ maxLength: 64, description: "The notice's id (ULID)." });
const NoticeToken = Type.String({ maxLength: 128, description: `The status token (${NOTICE_TOKEN_PREFIX}...) from the 201 of POST /v1/notices, in the Notice-Token header.` });
const PublicNotice = {
  id: Type.String({ description: "ULID of the notice." }),
  kind: Type.Union(NOTICE_KINDS.map((k) => Type.Literal(k))),
  state: Type.Union(NOTICE_STATES.map((s) => Type.Literal(s))),
  received_at: Type.String({ format: "date-time" }),
  updated_at: Type.String({ format: "date-time" }),
};
const NoticeView = Type.Object(PublicNotice, { additionalProperties: true, description: "The public view (state and dates), or more for the notifier (Notice-Token) and the affected workspace." });

const getNoticeIntake = defineReadOperation({
  name: "get_notice_intake",
  summary: "How to file a DSA or DMCA notice: the accepted kinds with their JSON Schemas, the location types, the limits and the designated agent.",
  http: { path: "/v1/notices/intake" },
  auth: { kind: "public" },
  input: Type.Object({}),
  output: Type.Object({ kinds: Type.Object({}, { additionalProperties: true }), location_types: Type.Array(Type.String()), limits: Type.Object({}, { additionalProperties: true }), designated_agent: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]) }),
  async handler(deps) {
    const { intakePerAddressPerMinute, ...text } = NOTICE_LIMITS;
    return {
      body: {
        kinds: { dsa: { schema: NOTICE_KIND_SCHEMAS.dsa }, dmca: { schema: NOTICE_KIND_SCHEMAS.dmca } },
        location_types: [...LOCATION_TYPES],
        limits: { ...text, notices_per_address_per_minute: intakePerAddressPerMinute, body_bytes: 262_144, attachments: false },
        designated_agent: deps.noticeSettings?.designatedAgent ?? null,
      },
    };
  },
});

const submitNoticeOp = defineOperation({
  name: "submit_notice",
  summary: "File a DSA or DMCA notice (no credential). Answers 201 with the notice and a status token shown once, whether or not the located items exist.",
  http: { method: "POST", path: "/v1/notices" },
  auth: { kind: "public" },
  idempotency: "none",
  mutates: true,
  input: NOTICE_INPUT_SCHEMA,
  output: Type.Object({ notice: Type.Object({ id: Type.String(), kind: Type.String(), state: Type.Literal("received"), received_at: Type.String({ format: "date-time" }) }), status_token: Type.String({ description: "Shown once; send it as Notice-Token to read, supplement or withdraw the notice." }) }),
  successStatus: 201,
  async handler(deps, ctx, input) {
    return { body: await submitNotice(deps, { input, clientAddress: ctx.clientAddress ?? null, requestId: ctx.requestId }) };
  },
});

const getNoticeOp = defineReadOperation({
  name: "get_notice",
  summary: "A notice's status: anyone sees its state and dates; the notifier (Notice-Token header) its notice and the decision; the affected workspace (administrative credential) what was disclosed to it.",
  http: { path: "/v1/notices/{notice_id}", headers: { notice_token: "Notice-Token" } },
  auth: { kind: "public", acceptsCredential: true },
  input: Type.Object({ notice_id: NoticeIdParam, notice_token: Type.Optional(NoticeToken) }),
  output: NoticeView,
  async handler(deps, ctx, input) {
    return { body: await getNotice(deps, { noticeId: input.notice_id, token: input.notice_token ?? null, principal: ctx.principal }) };
  },
});

const supplementNoticeOp = defineOperation({
  name: "supplement_notice",
  summary: "Add information to your notice (Notice-Token header); a notice waiting for information goes back under review.",
  http: { method: "POST", path: "/v1/notices/{notice_id}/supplement", headers: { notice_token: "Notice-Token" } },
  auth: { kind: "public" },
  idempotency: "none",
  mutates: true,
  input: Type.Object({ notice_id: NoticeIdParam, notice_token: NoticeToken, text: Type.String({ minLength: 1, maxLength: NOTICE_LIMITS.longTextChars, description: "What you add (plain text)." }) }, { additionalProperties: false }),
  output: NoticeView,
  successStatus: 200,
  async handler(deps, ctx, input) {
    return { body: await supplementNotice(deps, { noticeId: input.notice_id, token: input.notice_token, text: input.text, requestId: ctx.requestId }) };
  },
});

const withdrawNoticeOp = defineOperation({
  name: "withdraw_notice",
  summary: "Withdraw your notice (Notice-Token header) while it is open; measures it caused are lifted.",
  http: { method: "POST", path: "/v1/notices/{notice_id}/withdraw", headers: { notice_token: "Notice-Token" } },
  auth: { kind: "public" },
  idempotency: "none",
  mutates: true,
  input: Type.Object({ notice_id: NoticeIdParam, notice_token: NoticeToken }, { additionalProperties: false }),
  output: NoticeView,
  successStatus: 200,
  async handler(deps, ctx, input) {
    return { body: await withdrawNotice(deps, { noticeId: input.notice_id, token: input.notice_token, requestId: ctx.requestId }) };
  },
});

const listNoticesOp = defineReadOperation({
  name: "list_notices",
  summary: "The DSA and DMCA notices disclosed to your workspace, newest first, each with its decision, statement of reasons, measures and counter-notice.",
  http: { path: "/v1/notices", query: ["limit", "cursor"] },
  auth: { kind: "credential", tier: "administrative", scope: null },
  input: Type.Object({
    limit: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100." })),
    cursor: Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page." })),
  }),
  output: Type.Object({ items: Type.Array(NoticeView), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
  async handler(deps, ctx, input) {
    return { body: await listWorkspaceNotices(deps, { workspaceId: ctx.principal.workspace.id, limit: input.limit, cursor: input.cursor }) };
  },
});

export const fileCounterNoticeOp = definePeopleOperation({
  name: "file_counter_notice",
  summary: "The workspace owner (session + fresh MFA step-up) contests a decision that took action: a DMCA counter-notice (17 U.S.C. 512(g)(3) elements) or a DSA complaint (explanation). A DMCA measure is lifted 10 to 14 business days later unless a court action is recorded.",
  http: { method: "POST", path: "/v1/notices/{notice_id}/counter-notice" },
  // The rule is the core's `fileCounterNoticeAsOwner`: a fresh step-up, then the owner role; the workspace's state plays no part.
  auth: { kind: "person", roles: ["owner"], stepUp: true, closedWorkspaceAllowed: true },
  mutates: true,
  input: Type.Object({ ...COUNTER_NOTICE_INPUT_SCHEMA.properties, notice_id: NoticeIdParam }, { additionalProperties: false }),
  output: Type.Object({ id: Type.String({ description: "ULID of the notice." }), state: Type.Literal("contested") }, { additionalProperties: true, description: "The notice as the affected workspace sees it." }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const { notice_id: noticeId, ...counter } = input;
    return { body: await fileCounterNoticeAsOwner(deps, ctx.principal, { noticeId, input: counter, requestId: ctx.requestId }) };
  },
});

/**
 * The notices' operations (DESIGN §2b). The intake, status, supplement and withdrawal are public
 * (human routes for notifiers: no credential, so no MCP tools); the workspace's list is an
 * administrative read, and an MCP tool like every credential operation; the owner's
 * counter-notice is for a person's session (no MCP tool either).
 */
export const NOTICE_OPERATIONS = [getNoticeIntake, submitNoticeOp, getNoticeOp, supplementNoticeOp, withdrawNoticeOp, listNoticesOp, fileCounterNoticeOp];
