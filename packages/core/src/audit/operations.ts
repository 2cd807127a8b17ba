import { Type } from "@sinclair/typebox";
import { auditRowView, exportedAuditRowView } from "./audit-row-view.ts";
import { verifyWorkspaceChain } from "./verify-workspace-chain.ts";
import { decodeCursor, encodeCursor } from "../cursors/cursor.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import { malformed } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { defineOperation, defineReadOperation } from "../operation.ts";
import { latestAuditCheckpoint, proveAuditConsistency, proveAuditInclusion } from "./transparency-log/audit-proofs.ts";
import { messageReceiptForCaller } from "./transparency-log/message-receipt-for-caller.ts";
import { AUDIT_READER } from "./audit-reader.ts";
import { base64Encode } from "../encoding/base64.ts";

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

/** A leaf position or tree size: a positive integer, or its decimal digits (query strings arrive as text). */
const TreePosition = (description: string) => Type.Union([Type.Integer(), Type.String({ maxLength: 16 })], { description });

/**
 * A position or size of the tree from a request: absent stays absent; an integer from 1 to 2^53 - 1
 * or its decimal digits is that integer.
 * @throws DomainError SVC_MALFORMED_REQUEST (`details.field`) for anything else.
 */
function parseTreePosition(raw: unknown, field: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === "number" ? raw : typeof raw === "string" && /^[0-9]{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw malformed(`${field} must be a positive integer.`, { field });
  return n;
}

const Base64Hash = Type.String({ description: "A SHA-256 hash, padded standard base64 (44 characters)." });
const ProofHashes = Type.Array(Base64Hash, { description: "The proof's hashes, from the leaf (or the old tree) up to the root, as RFC 6962 and Go's sumdb/tlog order them." });

const InclusionProofSchema = Type.Object(
  {
    seq: Type.Integer({ description: "The row's position in the chain (leaf seq - 1)." }),
    leaf_index: Type.Integer({ description: "The leaf's index: seq - 1." }),
    tree_size: Type.Integer({ description: "The size of the tree the proof leads to." }),
    hashes: ProofHashes,
  },
  { description: "Proof that the tree of tree_size leaves contains the row at seq (docs/receipts.md)." },
);

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

const browseAuditLog = defineReadOperation({
  name: "browse_audit_log",
  summary: "Read your workspace's audit log, newest first, optionally only one activity (or activities containing a text) or only the rows of one message.",
  http: { path: "/v1/audit-log", query: ["limit", "cursor", "activity", "activity_contains", "message_id"] },
  auth: AUDIT_READER,
  input: Type.Object({
    limit: Limit,
    cursor: Cursor,
    activity: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only rows of this activity, e.g. message.sent." })),
    activity_contains: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only rows whose activity contains this text, e.g. revoked or credential." })),
    message_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only rows about this message (ULID)." })),
  }),
  output: Type.Object({ items: Type.Array(AuditRowSchema), next_cursor: NextCursor }, { description: "A page of audit rows, newest first. Operator-significant rows are withheld." }),
  async handler(deps, ctx, input) {
    const limit = parsePageLimit(input.limit);
    const workspaceId = ctx.principal.workspace.id;
    const activity = input.activity ?? null;
    const messageId = input.message_id ?? null;
    if (messageId !== null && !isUlid(messageId)) throw malformed("message_id must be a message ULID.", { field: "message_id" });
    const activityContains = input.activity_contains ?? null;
    const filters = { activity, activity_contains: activityContains, message_id: messageId };
    const after = decodeCursor(deps, { resource: "audit_log", workspaceId, filters }, input.cursor);
    const rows = await deps.stores.audit.list({ workspaceId, activity, activityContains, messageId, includeOperatorSignificant: false, after, limit });
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    const nextCursor = rows.length > limit && last !== undefined ? encodeCursor(deps, { resource: "audit_log", workspaceId, filters }, deps.stores.audit.positionOf(last)) : null;
    return { body: { items: page.map(auditRowView), next_cursor: nextCursor } };
  },
});

const verifyAuditLog = defineReadOperation({
  name: "verify_audit_log",
  summary: "Verify your workspace's sealed audit chain: returns the chain head and whether every sealed row still matches its hash, naming the first row that does not.",
  http: { path: "/v1/audit-log/verification" },
  auth: AUDIT_READER,
  input: Type.Object({}),
  output: Type.Object({
    verified: Type.Boolean({ description: "True when every sealed row verifies." }),
    head: Type.Union([Type.Object({ seq: Type.Integer(), hash: Type.String(), sealed_at: Nullable(Type.String({ format: "date-time" }), "When it was sealed.") }), Type.Null()], { description: "The last sealed row (record it to detect later truncation), or null when nothing is sealed yet." }),
    checked: Type.Integer({ description: "Rows verified good before the first bad one." }),
    first_bad_row: Type.Union([Type.Object({ id: Type.String(), seq: Type.Union([Type.Integer(), Type.Null()]), reason: Type.Union([Type.Literal("changed"), Type.Literal("removed"), Type.Literal("reordered")]) }), Type.Null()], {
      description: "The first row that fails: changed (content or link altered), removed (rows before it are missing) or reordered; null when verified.",
    }),
  }),
  async handler(deps, ctx) {
    const v = await verifyWorkspaceChain(deps.stores.audit, ctx.principal.workspace.id);
    return {
      body: {
        verified: v.verified,
        head: v.head === null ? null : { seq: v.head.seq, hash: v.head.hash, sealed_at: v.head.sealedAt?.toISOString() ?? null },
        checked: v.checked,
        first_bad_row: v.firstBadRow,
      },
    };
  },
});

const exportAuditChain = defineReadOperation({
  name: "export_audit_chain",
  summary: "Export your workspace's sealed audit chain in seq order, page by page (write the items as JSON lines and check them with `pnpm audit:verify <file>`); withheld rows show only their link.",
  http: { path: "/v1/audit-log/chain", query: ["limit", "cursor"] },
  auth: AUDIT_READER,
  input: Type.Object({ limit: Limit, cursor: Cursor }),
  output: Type.Object({ items: Type.Array(Type.Union([AuditRowSchema, WithheldRowSchema])), next_cursor: NextCursor }, { description: "A page of sealed rows, oldest first." }),
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
    return { body: { items: page.map(exportedAuditRowView), next_cursor: nextCursor } };
  },
});

const getAuditCheckpoint = defineReadOperation({
  name: "get_audit_checkpoint",
  summary: "Get your workspace's latest signed audit-log checkpoint (a C2SP signed note of the log's size and root hash); keep it to check later proofs against.",
  http: { path: "/v1/audit-log/checkpoint", textBody: "checkpoint" },
  auth: AUDIT_READER,
  input: Type.Object({}),
  output: Type.Object(
    {
      checkpoint: Type.String({ description: "The signed note exactly as signed (REST answers it alone, as text/plain): origin, tree size, base64 root hash, a blank line, the signature lines." }),
      origin: Type.String({ description: "The log's name: <host>/agentq/<workspace id>." }),
      tree_size: Type.Integer({ description: "Rows the tree holds (seq 1 to tree_size)." }),
      root_hash: Base64Hash,
      signed_at: Type.String({ format: "date-time", description: "When the sealer signed it." }),
    },
    { description: "The latest checkpoint." },
  ),
  async handler(deps, ctx) {
    const latest = await latestAuditCheckpoint(deps, { workspaceId: ctx.principal.workspace.id });
    // The note's first line is the origin it was signed with (PUBLIC_BASE_URL may have changed since).
    const origin = latest.note.slice(0, latest.note.indexOf("\n"));
    return { body: { checkpoint: latest.note, origin, tree_size: latest.treeSize, root_hash: base64Encode(latest.rootHash), signed_at: latest.signedAt.toISOString() } };
  },
});

const getAuditInclusionProof = defineReadOperation({
  name: "get_audit_inclusion_proof",
  summary: "Prove that the audit log's tree of tree_size rows (default: the latest checkpoint's) contains the row at seq.",
  http: { path: "/v1/audit-log/proof/inclusion", query: ["seq", "tree_size"] },
  auth: AUDIT_READER,
  input: Type.Object({
    seq: TreePosition("The row's seq (1 to tree_size)."),
    tree_size: Type.Optional(TreePosition("The size of a checkpoint you hold (at most the latest's); default the latest checkpoint's.")),
  }),
  output: InclusionProofSchema,
  async handler(deps, ctx, input) {
    const seq = parseTreePosition(input.seq, "seq") as number;
    const treeSize = parseTreePosition(input.tree_size, "tree_size");
    const proof = await proveAuditInclusion(deps, { workspaceId: ctx.principal.workspace.id, seq, ...(treeSize === undefined ? {} : { treeSize }) });
    return { body: proof };
  },
});

const getAuditConsistencyProof = defineReadOperation({
  name: "get_audit_consistency_proof",
  summary: "Prove that the audit log's tree of `to` rows (default: the latest checkpoint's) extends the tree of `from` rows: nothing in the older was changed.",
  http: { path: "/v1/audit-log/proof/consistency", query: ["from", "to"] },
  auth: AUDIT_READER,
  input: Type.Object({
    from: TreePosition("The size of the older checkpoint you hold."),
    to: Type.Optional(TreePosition("The size of the newer checkpoint (at most the latest's); default the latest checkpoint's.")),
  }),
  output: Type.Object({ from: Type.Integer(), to: Type.Integer(), hashes: ProofHashes }, { description: "Proof that the tree of `to` leaves extends the tree of `from` leaves (no hashes when from = to)." }),
  async handler(deps, ctx, input) {
    const from = parseTreePosition(input.from, "from") as number;
    const to = parseTreePosition(input.to, "to");
    const proof = await proveAuditConsistency(deps, { workspaceId: ctx.principal.workspace.id, from, ...(to === undefined ? {} : { to }) });
    return { body: proof };
  },
});

const getMessageReceipt = defineOperation({
  name: "get_message_receipt",
  summary: "Get a message's receipt: its signed send record, an inclusion proof and the checkpoint it is proven against, checkable offline with `agentq receipt verify`.",
  http: { method: "GET", path: "/v1/messages/{message_id}/receipt" },
  // The message's sender or recipient, or whoever reads the whole audit log (the handler decides).
  auth: { kind: "credential", tier: "operational", scope: null },
  idempotency: "none",
  mutates: false,
  input: Type.Object({ message_id: Type.String({ minLength: 1, maxLength: 64, description: "The message's ULID." }) }),
  output: Type.Object(
    {
      message_id: Type.String(),
      record: Type.String({ description: "The message.sent row's canonical JSON: its UTF-8 bytes are the leaf's data." }),
      inclusion: InclusionProofSchema,
      checkpoint: Type.String({ description: "The signed checkpoint the proof leads to (C2SP signed note)." }),
      verifier_keys: Type.Array(Type.String(), { description: "The log's verifier keys when served (/.well-known/agentq-log-key); trusting them proves only self-consistency." }),
    },
    { description: "A message's receipt (docs/receipts.md). 409 SVC_RESOURCE_CONFLICT (reason not_sealed_yet) until the sealer has signed the send, within seconds." },
  ),
  successStatus: 200,
  async handler(deps, ctx, input) {
    return { body: await messageReceiptForCaller(deps, ctx.principal, input) };
  },
});

/** The audit-log operations (GET /v1/audit-log, its verification, its chain export, its checkpoint and proofs, and a message's receipt). */
export const AUDIT_OPERATIONS = [browseAuditLog, verifyAuditLog, exportAuditChain, getAuditCheckpoint, getAuditInclusionProof, getAuditConsistencyProof, getMessageReceipt];
