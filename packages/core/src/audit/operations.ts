import { Type } from "@sinclair/typebox";
import { auditRowView, exportedAuditRowView } from "./audit-row-view.ts";
import { verifyWorkspaceChain } from "./verify-workspace-chain.ts";
import { decodeCursor, encodeCursor } from "../cursors/cursor.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import { malformed } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { defineOperation } from "../operation.ts";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const Limit = Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100; not an integer gives 400." }));
const Cursor = Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page (bound to this query; expires after 24 hours)." }));
const NextCursor = Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page; null on the last page." });
const Nullable = (t: ReturnType<typeof Type.String>, description: string) => Type.Union([t, Type.Null()], { description });

const AuditRowSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the row." }),
    workspace_id: Type.String({ description: "The workspace (part of the row's hash)." }),
    seq: Type.Union([Type.Integer(), Type.Null()], { description: "Position in the workspace's hash chain; null until the sealer links the row (within seconds)." }),
    occurred_at: Type.String({ format: "date-time", description: "When it happened." }),
    activity: Type.String({ description: "What happened, e.g. message.sent, credential.revoked, policy.acknowledged, message.send_refused." }),
    actor_ai_account_id: Nullable(Type.String(), "The AI account that caused it, or null for the service or an operator."),
    actor_credential_id: Nullable(Type.String(), "The credential it used, or null."),
    subject_type: Type.String({ description: "message, ai_account, credential, workspace or policy." }),
    subject_id: Type.String({ description: "ULID of the subject." }),
    message_id: Nullable(Type.String(), "The message it concerns, or null."),
    details: Type.Record(Type.String(), Type.Unknown(), { description: "Specifics of the activity (refusals carry the SVC_ code)." }),
    request_id: Nullable(Type.String(), "X-Request-Id of the request that caused it, or null."),
    prev_hash: Nullable(Type.String(), "Hash of the previous row in the chain (64 zeros for seq 1), or null until sealed."),
    hash: Nullable(Type.String(), "SHA-256 (hex) of prev_hash followed by the row's canonical JSON, or null until sealed."),
    sealed_at: Nullable(Type.String({ format: "date-time" }), "When the row was sealed, or null."),
  },
  { description: "One row of the workspace's audit log." },
);

const WithheldRowSchema = Type.Object(
  {
    withheld: Type.Literal(true),
    seq: Type.Integer(),
    prev_hash: Type.String(),
    hash: Type.String(),
    sealed_at: Nullable(Type.String({ format: "date-time" }), "When the row was sealed."),
  },
  { description: "An operator-significant row: only its link in the chain is shown." },
);

/** Scope view_audit_log, or any administrative-tier credential (spec §Audit log). */
const AUDIT_READER = { kind: "credential" as const, tier: "operational" as const, scope: "view_audit_log" as const, scopeWaivedForTier: "administrative" as const };

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

const browseAuditLog = defineOperation({
  name: "browse_audit_log",
  summary: "Read your workspace's audit log, newest first, optionally only one activity or only the rows of one message.",
  http: { method: "GET", path: "/v1/audit-log", query: ["limit", "cursor", "activity", "message_id"] },
  auth: AUDIT_READER,
  idempotency: "none",
  mutates: false,
  input: Type.Object({
    limit: Limit,
    cursor: Cursor,
    activity: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only rows of this activity, e.g. message.sent." })),
    message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only rows about this message (ULID)." })),
  }),
  output: Type.Object({ items: Type.Array(AuditRowSchema), next_cursor: NextCursor }, { description: "A page of audit rows, newest first. Operator-significant rows are withheld." }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const limit = parsePageLimit(input.limit);
    const workspaceId = ctx.principal.workspace.id;
    const activity = input.activity ?? null;
    const messageId = input.message_id ?? null;
    if (messageId !== null && !isUlid(messageId)) throw malformed("message_id must be a message ULID.", { field: "message_id" });
    const filters = { activity, message_id: messageId };
    const after = decodeCursor(deps, { resource: "audit_log", workspaceId, filters }, input.cursor);
    const rows = await deps.stores.audit.list({ workspaceId, activity, messageId, includeOperatorSignificant: false, after, limit });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > limit && last !== undefined ? encodeCursor(deps, { resource: "audit_log", workspaceId, filters }, deps.stores.audit.positionOf(last)) : null;
    return { status: 200, body: { items: page.map(auditRowView), next_cursor: nextCursor } };
  },
});

const verifyAuditLog = defineOperation({
  name: "verify_audit_log",
  summary: "Verify your workspace's sealed audit chain: returns the chain head and whether every sealed row still matches its hash, naming the first row that does not.",
  http: { method: "GET", path: "/v1/audit-log/verification" },
  auth: AUDIT_READER,
  idempotency: "none",
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({
    verified: Type.Boolean({ description: "True when every sealed row verifies." }),
    head: Type.Union([Type.Object({ seq: Type.Integer(), hash: Type.String(), sealed_at: Nullable(Type.String({ format: "date-time" }), "When it was sealed.") }), Type.Null()], { description: "The last sealed row (record it to detect later truncation), or null when nothing is sealed yet." }),
    checked: Type.Integer({ description: "Rows verified good before the first bad one." }),
    first_bad_row: Type.Union([Type.Object({ id: Type.String(), seq: Type.Union([Type.Integer(), Type.Null()]), reason: Type.Union([Type.Literal("changed"), Type.Literal("removed"), Type.Literal("reordered")]) }), Type.Null()], {
      description: "The first row that fails: changed (content or link altered), removed (rows before it are missing) or reordered; null when verified.",
    }),
  }),
  successStatus: 200,
  async handler(deps, ctx) {
    const v = await verifyWorkspaceChain(deps.stores.audit, ctx.principal.workspace.id);
    return {
      status: 200,
      body: {
        verified: v.verified,
        head: v.head === null ? null : { seq: v.head.seq, hash: v.head.hash, sealed_at: v.head.sealedAt?.toISOString() ?? null },
        checked: v.checked,
        first_bad_row: v.firstBadRow,
      },
    };
  },
});

const exportAuditChain = defineOperation({
  name: "export_audit_chain",
  summary: "Export your workspace's sealed audit chain in seq order, page by page (write the items as JSON lines and check them with `pnpm audit:verify <file>`); withheld rows show only their link.",
  http: { method: "GET", path: "/v1/audit-log/chain", query: ["limit", "cursor"] },
  auth: AUDIT_READER,
  idempotency: "none",
  mutates: false,
  input: Type.Object({ limit: Limit, cursor: Cursor }),
  output: Type.Object({ items: Type.Array(Type.Union([AuditRowSchema, WithheldRowSchema])), next_cursor: NextCursor }, { description: "A page of sealed rows, oldest first." }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const limit = parsePageLimit(input.limit);
    const workspaceId = ctx.principal.workspace.id;
    const scope = { resource: "audit_chain", workspaceId, filters: {} };
    const after = decodeCursor(deps, scope, input.cursor);
    const afterSeq = after === null ? 0 : Number(after);
    const rows = await deps.stores.audit.readChain({ workspaceId, afterSeq: Number.isSafeInteger(afterSeq) ? afterSeq : 0, limit: limit + 1 });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > limit && last?.seq != null ? encodeCursor(deps, scope, String(last.seq)) : null;
    return { status: 200, body: { items: page.map(exportedAuditRowView), next_cursor: nextCursor } };
  },
});

/** The audit-log operations (GET /v1/audit-log, its verification and its chain export). */
export const AUDIT_OPERATIONS = [browseAuditLog, verifyAuditLog, exportAuditChain];
