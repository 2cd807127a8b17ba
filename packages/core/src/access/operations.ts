import { Type } from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";
import { aiAccountView, credentialDetailView, credentialView, workspaceView } from "./access-views.ts";
import type { CredentialView } from "./access-views.ts";
import { createAiAccount, freezeAiAccount, getAiAccount, listAiAccounts, renameAiAccount, revokeAiAccount, unfreezeAiAccount } from "./ai-accounts.ts";
import { getCredential, issueCredential, listCredentials, revokeCredential, rotateCredential } from "./credentials.ts";
import type { MintedCredential } from "./credentials.ts";
import { buildMcpConfig } from "./mcp-config.ts";
import type { AiAccountState } from "./model.ts";
import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES, RETIRED_SCOPES } from "./model.ts";
import { tokenFromSeal } from "./token.ts";
import { TOOLSETS, type Toolset } from "../toolsets.ts";
import { decodeCursor } from "../cursors/cursor.ts";
import { pageOf } from "../cursors/page.ts";
import { storePage } from "../cursors/paged-list.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { isDomainError, malformed } from "../errors.ts";
import { auditRefusal } from "../audit/refusal-audit.ts";
import { checkAccountCap } from "../plans/plan-caps.ts";
import { runIdempotent } from "../idempotency/run-idempotent.ts";
import { isUlid } from "../ids.ts";
import type { OperationResult } from "../operation.ts";
import { defineOperation, defineReadOperation } from "../operation.ts";
import { PersonMeSchema } from "../people/people-schemas.ts";
import { personView, personWorkspaceView } from "../people/people-views.ts";
import { workspaceLimits } from "../plans/workspace-limits.ts";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const Timestamp = (description: string) => Type.String({ format: "date-time", description });
const NullableTimestamp = (description: string) => Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description });
const FriendlyName = Type.String({ pattern: "^[a-z0-9][a-z0-9._-]{0,62}$", description: "Friendly name: 1-63 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit; unique in the workspace among accounts that are not revoked." });
const Limit = Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100; not an integer gives 400." }));
const Cursor = Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page (bound to this query; expires after 24 hours)." }));

const AiAccountStateSchema = Type.Union([Type.Literal("active"), Type.Literal("frozen"), Type.Literal("revoked")], { description: "active, frozen (calls get 403 SVC_FROZEN) or revoked (final)." });
const AiAccountSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the AI account." }),
    friendly_name: Type.String({ description: "The name senders address it by." }),
    state: AiAccountStateSchema,
    created_at: Timestamp("When the account was created."),
    last_active_at: NullableTimestamp("When one of its credentials last authenticated a request (REST, MCP or the CLI), or null when none has. Recorded at most once a minute: up to a minute old."),
  },
  { description: "An AI account: the addressable identity that credentials belong to." },
);

const TierSchema = Type.Union([Type.Literal("operational"), Type.Literal("administrative")], { description: "operational (max 365 days) or administrative (max 90 days)." });
const ALL_SCOPES = [...OPERATIONAL_SCOPES, ...ADMINISTRATIVE_SCOPES, ...RETIRED_SCOPES];
const credentialFields = {
  id: Type.String({ description: "ULID of the credential." }),
  ai_account_id: Type.String({ description: "The owning AI account." }),
  tier: TierSchema,
  scopes: Type.Array(Type.String(), { description: "Scopes fixed at issue." }),
  name: Type.String({ description: "Human label identifying the agent and machine." }),
  state: Type.Union([Type.Literal("active"), Type.Literal("revoked")], { description: "active or revoked. An active credential past expires_at no longer authenticates." }),
  expires_at: NullableTimestamp("After this instant the credential no longer authenticates (a rotated predecessor: the end of its overlap window)."),
  project_id: Type.Union([Type.String(), Type.Null()], { description: "The project an operational credential is restricted to, or null." }),
  created_at: Timestamp("When the credential was issued."),
};
const CredentialSchema = Type.Object(credentialFields, { description: "A credential as issued. Never carries the token." });
const CredentialDetailSchema = Type.Object(
  {
    ...credentialFields,
    revoked_at: NullableTimestamp("When it was revoked, or null."),
    rotated_from_id: Type.Union([Type.String(), Type.Null()], { description: "The credential this one was rotated from, or null." }),
    rotated_to_id: Type.Union([Type.String(), Type.Null()], { description: "The successor this one was rotated to, or null." }),
    last_used_at: NullableTimestamp("When it last authenticated a request (REST, MCP or the CLI), or null when never. Recorded at most once a minute: up to a minute old."),
  },
  { description: "A credential record. Never carries the token or its hash." },
);
const McpConfigSchema = Type.Object(
  { mcpServers: Type.Record(Type.String(), Type.Object({ type: Type.Literal("http"), url: Type.String(), headers: Type.Record(Type.String(), Type.String()) })) },
  { description: "A paste-ready MCP client configuration (Streamable HTTP with the bearer header)." },
);
const IssuedSchema = Type.Object(
  {
    credential: CredentialSchema,
    token: Type.String({ description: "The plaintext bearer token (agq_op_... or agq_ad_...), shown only in this response." }),
    mcp_config: Type.Optional(McpConfigSchema),
  },
  { description: "The new credential and its plaintext token, returned once." },
);
const WorkspaceSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the workspace." }),
    name: Type.String({ description: "The workspace's name." }),
    state: Type.Union([Type.Literal("active"), Type.Literal("frozen"), Type.Literal("closed")], { description: "active, frozen or closed." }),
    created_at: Timestamp("When the workspace was created."),
  },
  { description: "The caller's workspace." },
);
const page = <T extends TSchema>(item: T, description: string) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page; null on the last page." }) }, { description });

const AccountPath = { ai_account_id: Id("ULID of the AI account.") };
const CredentialPath = { credential_id: Id("ULID of the credential.") };
const Form = Type.Optional(Type.Literal("mcp_config", { description: "mcp_config: also return a paste-ready MCP client configuration." }));
const Toolsets = Type.Optional(
  Type.Array(Type.Union(TOOLSETS.map((t) => Type.Literal(t))), { maxItems: TOOLSETS.length, description: `With form mcp_config: the MCP toolsets (${TOOLSETS.join(", ")}) the configuration's URL names (?toolsets=); default none named: the credential's scopes decide.` }),
);

const ADMIN = (scope: "manage_ai_accounts" | "manage_credentials" | null) => ({ kind: "credential" as const, tier: "administrative" as const, scope });
const ANY_CALLER = { kind: "credential" as const, tier: "operational" as const, scope: null };

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** What an issue or rotate stores as its idempotent response: the seal, never the token. */
interface SealedIssue {
  credential: CredentialView;
  token_seal: string;
  form: "mcp_config" | null;
  /** The toolsets the MCP configuration's URL names (absent in responses stored before they existed). */
  toolsets?: Toolset[] | null;
}

/**
 * The form and toolsets of an issue or rotate request.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field `toolsets`) for toolsets without form mcp_config.
 */
function formOf(input: { form?: "mcp_config" | undefined; toolsets?: Toolset[] | undefined }): { form: "mcp_config" | undefined; toolsets: Toolset[] | null } {
  if (input.toolsets !== undefined && input.form !== "mcp_config") throw malformed("toolsets goes with form mcp_config.", { field: "toolsets" });
  return { form: input.form, toolsets: input.toolsets === undefined ? null : TOOLSETS.filter((t) => input.toolsets!.includes(t)) };
}

function sealIssue(minted: MintedCredential, form: { form: "mcp_config" | undefined; toolsets: Toolset[] | null }): SealedIssue {
  return { credential: credentialView(minted.credential), token_seal: minted.seal, form: form.form ?? null, toolsets: form.toolsets };
}

/**
 * Turns a sealed issue response (fresh or replayed from the idempotency store) into the wire
 * response: the token is derived again from the seal, so a replay returns the same bytes while
 * the idempotency store never holds the plaintext (DESIGN §4).
 */
function unsealIssue(deps: CoreDeps, result: OperationResult): OperationResult {
  const sealed = result.body as SealedIssue;
  const token = tokenFromSeal(deps.secrets.pepper, sealed.credential.tier, sealed.token_seal);
  const body = { credential: sealed.credential, token, ...(sealed.form === "mcp_config" ? { mcp_config: buildMcpConfig(requirePublicBaseUrl(deps), token, sealed.toolsets ?? null) } : {}) };
  return { ...result, body };
}

function forgetAfterCommit(deps: CoreDeps, credentialIds: readonly string[]): void {
  for (const id of credentialIds) deps.credentialCache?.forget(id);
}

// ---------------------------------------------------------------------------------------------
// AI accounts
// ---------------------------------------------------------------------------------------------

const createAiAccountOp = defineOperation({
  name: "create_ai_account",
  summary: "Create an AI account in the workspace.",
  http: { method: "POST", path: "/v1/ai-accounts" },
  auth: ADMIN("manage_ai_accounts"),
  idempotency: "optional",
  mutates: true,
  input: Type.Object({ friendly_name: FriendlyName }),
  output: AiAccountSchema,
  successStatus: 201,
  // The AI-account plan cap is checked inside the creating transaction (after an idempotent
  // replay, which it must not refuse); its refusal is audited outside that transaction.
  async handler(deps, ctx, input) {
    try {
      return await runIdempotent(deps, ctx, async (stores) => {
        await checkAccountCap(deps, stores, ctx.principal.workspace.id);
        return { status: 201, body: aiAccountView(await createAiAccount(deps, stores, ctx, { friendlyName: input.friendly_name })) };
      });
    } catch (e) {
      if (isDomainError(e) && e.code === "SVC_PLAN_LIMIT_EXCEEDED") await auditRefusal(deps, ctx, { activity: "ai_account.create_refused", code: e.code, subjectType: "workspace", subjectId: ctx.principal.workspace.id, details: e.details ?? {} });
      throw e;
    }
  },
});

const listAiAccountsOp = defineReadOperation({
  name: "list_ai_accounts",
  summary: "List the workspace's AI accounts, oldest first.",
  http: { path: "/v1/ai-accounts", query: ["limit", "cursor", "state"] },
  auth: ADMIN(null),
  input: Type.Object({ limit: Limit, cursor: Cursor, state: Type.Optional(AiAccountStateSchema) }),
  output: page(AiAccountSchema, "A page of AI accounts."),
  async handler(deps, ctx, input) {
    const state: AiAccountState | null = input.state ?? null;
    const page = { resource: "ai_accounts", filters: { state }, limit: input.limit, cursor: input.cursor };
    return { body: await storePage(deps, ctx, page, (after, limit) => listAiAccounts(deps.stores, ctx, { state, after, limit }), aiAccountView) };
  },
});

const getAiAccountOp = defineReadOperation({
  name: "get_ai_account",
  summary: "Read one AI account of the workspace.",
  http: { path: "/v1/ai-accounts/{ai_account_id}" },
  auth: ADMIN(null),
  input: Type.Object(AccountPath),
  output: AiAccountSchema,
  async handler(deps, ctx, input) {
    return { body: aiAccountView(await getAiAccount(deps.stores, ctx, input.ai_account_id)) };
  },
});

const renameAiAccountOp = defineOperation({
  name: "rename_ai_account",
  summary: "Rename an AI account (active or frozen).",
  http: { method: "PATCH", path: "/v1/ai-accounts/{ai_account_id}" },
  auth: ADMIN("manage_ai_accounts"),
  idempotency: "optional",
  mutates: true,
  input: Type.Object({ ...AccountPath, friendly_name: FriendlyName }),
  output: AiAccountSchema,
  successStatus: 200,
  handler: (deps, ctx, input) =>
    runIdempotent(deps, ctx, async (stores) => ({ status: 200, body: aiAccountView(await renameAiAccount(deps, stores, ctx, { accountId: input.ai_account_id, friendlyName: input.friendly_name })) })),
});

const freezeAiAccountOp = defineOperation({
  name: "freeze_ai_account",
  summary: "Freeze an active AI account: its calls get 403 SVC_FROZEN from the next request on.",
  http: { method: "POST", path: "/v1/ai-accounts/{ai_account_id}/freeze" },
  auth: ADMIN("manage_ai_accounts"),
  idempotency: "required",
  mutates: true,
  input: Type.Object(AccountPath),
  output: AiAccountSchema,
  successStatus: 200,
  handler: (deps, ctx, input) => runIdempotent(deps, ctx, async (stores) => ({ status: 200, body: aiAccountView(await freezeAiAccount(deps, stores, ctx, input.ai_account_id)) })),
});

const unfreezeAiAccountOp = defineOperation({
  name: "unfreeze_ai_account",
  summary: "Unfreeze a frozen AI account.",
  http: { method: "POST", path: "/v1/ai-accounts/{ai_account_id}/unfreeze" },
  auth: ADMIN("manage_ai_accounts"),
  idempotency: "optional",
  mutates: true,
  input: Type.Object(AccountPath),
  output: AiAccountSchema,
  successStatus: 200,
  handler: (deps, ctx, input) => runIdempotent(deps, ctx, async (stores) => ({ status: 200, body: aiAccountView(await unfreezeAiAccount(deps, stores, ctx, input.ai_account_id)) })),
});

const revokeAiAccountOp = defineOperation({
  name: "revoke_ai_account",
  summary: "Revoke an AI account and, in the same transaction, every credential it has. Not reversible.",
  http: { method: "POST", path: "/v1/ai-accounts/{ai_account_id}/revoke" },
  auth: ADMIN("manage_ai_accounts"),
  idempotency: "required",
  mutates: true,
  input: Type.Object(AccountPath),
  output: AiAccountSchema,
  successStatus: 200,
  async handler(deps, ctx, input) {
    let revokedIds: string[] = [];
    const result = await runIdempotent(deps, ctx, async (stores) => {
      const { account, revokedCredentials } = await revokeAiAccount(deps, stores, ctx, input.ai_account_id);
      revokedIds = revokedCredentials.map((c) => c.id);
      return { status: 200, body: aiAccountView(account) };
    });
    forgetAfterCommit(deps, revokedIds);
    return result;
  },
});

// ---------------------------------------------------------------------------------------------
// Credentials
// ---------------------------------------------------------------------------------------------

const issueCredentialOp = defineOperation({
  name: "issue_credential",
  summary: "Issue a credential to an AI account; the plaintext token is returned once.",
  http: { method: "POST", path: "/v1/credentials" },
  auth: ADMIN("manage_credentials"),
  idempotency: "optional",
  mutates: true,
  input: Type.Object({
    ai_account_id: Id("The AI account the credential belongs to."),
    tier: TierSchema,
    scopes: Type.Array(Type.String({ maxLength: 64 }), { maxItems: ALL_SCOPES.length, description: `Scopes of the tier. Operational: ${OPERATIONAL_SCOPES.join(", ")}. Administrative: ${ADMINISTRATIVE_SCOPES.join(", ")}. Retired scopes cannot be requested.` }),
    name: Type.String({ minLength: 1, maxLength: 200, description: "Human label identifying the agent and machine." }),
    form: Form,
    toolsets: Toolsets,
    expires_at: Type.Optional(Type.String({ maxLength: 40, description: "RFC 3339 timestamp in the future, within the tier maximum (operational 365 days, administrative 90 days). Default: the tier maximum." })),
    project_id: Type.Optional(Type.String({ maxLength: 64, description: "Operational credentials only: restricts reads to that project (one of this workspace's; else 404)." })),
  }),
  output: IssuedSchema,
  successStatus: 201,
  async handler(deps, ctx, input) {
    const form = formOf(input);
    const result = await runIdempotent(deps, ctx, async (stores) => {
      const minted = await issueCredential(deps, stores, ctx, { aiAccountId: input.ai_account_id, tier: input.tier, scopes: input.scopes, name: input.name, expiresAt: input.expires_at ?? null, projectId: input.project_id ?? null });
      return { status: 201, body: sealIssue(minted, form) };
    });
    return unsealIssue(deps, result);
  },
});

const listCredentialsOp = defineReadOperation({
  name: "list_credentials",
  summary: "List the workspace's credentials, newest first (never the plaintext).",
  http: { path: "/v1/credentials", query: ["limit", "cursor", "ai_account_id"] },
  auth: ADMIN(null),
  input: Type.Object({ limit: Limit, cursor: Cursor, ai_account_id: Type.Optional(Id("Only credentials of this AI account.")) }),
  output: page(CredentialDetailSchema, "A page of credentials."),
  async handler(deps, ctx, input) {
    const limit = parsePageLimit(input.limit);
    const aiAccountId = input.ai_account_id ?? null;
    if (aiAccountId !== null && !isUlid(aiAccountId)) throw malformed("ai_account_id must be a ULID.", { field: "ai_account_id" });
    const filters = { ai_account_id: aiAccountId };
    const after = decodeCursor(deps, { resource: "credentials", workspaceId: ctx.principal.workspace.id, filters }, input.cursor);
    const { items, nextAfter } = await listCredentials(deps.stores, ctx, { aiAccountId, after, limit });
    return { body: pageOf(deps, ctx, "credentials", filters, nextAfter, items.map(credentialDetailView)) };
  },
});

const getCredentialOp = defineReadOperation({
  name: "get_credential",
  summary: "Read one credential of the workspace (never the plaintext).",
  http: { path: "/v1/credentials/{credential_id}" },
  auth: ADMIN(null),
  input: Type.Object(CredentialPath),
  output: CredentialDetailSchema,
  async handler(deps, ctx, input) {
    return { body: credentialDetailView(await getCredential(deps.stores, ctx, input.credential_id)) };
  },
});

const rotateCredentialOp = defineOperation({
  name: "rotate_credential",
  summary: "Rotate a credential: a successor with the same scopes; the old one keeps working for overlap_window.",
  http: { method: "POST", path: "/v1/credentials/{credential_id}/rotate" },
  auth: ADMIN("manage_credentials"),
  idempotency: "required",
  mutates: true,
  input: Type.Object({
    ...CredentialPath,
    overlap_window: Type.String({ maxLength: 40, description: "ISO 8601 duration, PT1S to P1D, whole seconds: how long the old credential keeps working." }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Label of the successor; default the predecessor's." })),
    form: Form,
    toolsets: Toolsets,
  }),
  output: IssuedSchema,
  successStatus: 201,
  async handler(deps, ctx, input) {
    const form = formOf(input);
    const result = await runIdempotent(deps, ctx, async (stores) => {
      const minted = await rotateCredential(deps, stores, ctx, { credentialId: input.credential_id, overlapWindow: input.overlap_window, name: input.name ?? null });
      return { status: 201, body: sealIssue(minted, form) };
    });
    forgetAfterCommit(deps, [input.credential_id]);
    return unsealIssue(deps, result);
  },
});

const revokeCredentialOp = defineOperation({
  name: "revoke_credential",
  summary: "Revoke a credential: calls with it get 401 (within 30 s on other replicas).",
  http: { method: "POST", path: "/v1/credentials/{credential_id}/revoke" },
  auth: ADMIN("manage_credentials"),
  idempotency: "required",
  mutates: true,
  input: Type.Object(CredentialPath),
  output: CredentialDetailSchema,
  successStatus: 200,
  async handler(deps, ctx, input) {
    const result = await runIdempotent(deps, ctx, async (stores) => ({ status: 200, body: credentialDetailView(await revokeCredential(deps, stores, ctx, input.credential_id)) }));
    forgetAfterCommit(deps, [input.credential_id]);
    return result;
  },
});

// ---------------------------------------------------------------------------------------------
// Workspace and caller
// ---------------------------------------------------------------------------------------------

const getWorkspaceOp = defineReadOperation({
  name: "get_workspace",
  summary: "Read the caller's workspace.",
  http: { path: "/v1/workspaces/me" },
  auth: ANY_CALLER,
  input: Type.Object({}),
  output: WorkspaceSchema,
  async handler(_deps, ctx) {
    return { body: workspaceView(ctx.principal.workspace) };
  },
});

const getMeOp = defineReadOperation({
  name: "get_me",
  summary: "Who is calling: the AI account, credential and workspace behind a bearer token, or the person and workspace behind a session cookie.",
  http: { path: "/v1/me" },
  auth: ANY_CALLER,
  input: Type.Object({}),
  output: Type.Union([
    Type.Object(
      { kind: Type.Literal("ai_account", { description: "A caller with a bearer credential." }), ai_account: AiAccountSchema, credential: CredentialSchema, workspace: WorkspaceSchema },
      { description: "The calling AI account." },
    ),
    PersonMeSchema,
  ]),
  async handler(deps, ctx) {
    if (ctx.principal.kind === "person") {
      const { plan } = await workspaceLimits(deps, ctx.principal.workspace.id);
      return { body: { kind: "person", person: personView(ctx.principal.person), workspace: personWorkspaceView(ctx.principal.workspace, plan) } };
    }
    const { account, credential, workspace } = ctx.principal;
    return { body: { kind: "ai_account", ai_account: aiAccountView(account), credential: credentialView(credential), workspace: workspaceView(workspace) } };
  },
});

/**
 * The operations of the access area: AI accounts, credentials, the workspace and the caller
 * (spec §Endpoints/Accounts, credentials, workspace; DESIGN §2). Reads of accounts and
 * credentials need an administrative credential (no scope); writes need manage_ai_accounts or
 * manage_credentials. DELETE /v1/me and DELETE /v1/workspaces/me need a dashboard session and
 * are not here.
 */
export const ACCESS_OPERATIONS = [
  createAiAccountOp,
  listAiAccountsOp,
  getAiAccountOp,
  renameAiAccountOp,
  freezeAiAccountOp,
  unfreezeAiAccountOp,
  revokeAiAccountOp,
  issueCredentialOp,
  listCredentialsOp,
  getCredentialOp,
  rotateCredentialOp,
  revokeCredentialOp,
  getWorkspaceOp,
  getMeOp,
] as const;
