import { Type } from "@sinclair/typebox";
import type { Credential } from "../access/model.ts";
import { storePage } from "../cursors/paged-list.ts";
import { runIdempotent } from "../idempotency/run-idempotent.ts";
import { disconnectConnection, listConnections } from "./connections.ts";
import { forgetCredentials } from "./grants.ts";
import { GRANT_REVOCATION_CAUSES } from "./model.ts";
import { defineOperation, defineReadOperation } from "../operation.ts";

const Timestamp = (description: string) => Type.String({ format: "date-time", description });
const Limit = Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100; not an integer gives 400." }));
const Cursor = Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page (bound to this query; expires after 24 hours)." }));

const ConnectionSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the grant." }),
    client_id: Type.String({ description: "The OAuth client_id the grant was made for." }),
    client_name: Type.Union([Type.String(), Type.Null()], { description: "The client's name as it asserted it at registration (not verified), or null." }),
    redirect_host: Type.String({ description: "host[:port] of the redirect URI the approval went to (for a private-use scheme without a host, the scheme)." }),
    ai_account: Type.Object({ id: Type.String(), friendly_name: Type.String() }, { description: "The AI account the client acts as." }),
    scopes: Type.Array(Type.String(), { description: "The granted scopes: every access token of the grant carries them (or fewer)." }),
    created_at: Timestamp("When the authorization code was exchanged."),
    last_used_at: Timestamp("When the connection was last used: a token issued under the grant (code exchange or refresh) or one of its access tokens authenticating a request (recorded at most once a minute)."),
    state: Type.Union([Type.Literal("active"), Type.Literal("expired"), Type.Literal("revoked")], { description: "active; expired (its newest refresh token ran out: the client must authorize again); revoked." }),
    revoked_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()], { description: "When it was revoked, or null." }),
    revoked_reason: Type.Union([...GRANT_REVOCATION_CAUSES.map((c) => Type.Literal(c)), Type.Null()], {
      description: "Why: disconnected (from Connections), refresh_token_replayed (a spent refresh token came back), authorization_code_replayed, revoked_by_client (RFC 7009), ai_account_revoked; null while not revoked.",
    }),
  },
  { description: "A Connection: an MCP client's OAuth grant, acting as one AI account." },
);

const listConnectionsOp = defineReadOperation({
  name: "list_connections",
  summary: "List the workspace's Connections (OAuth grants of MCP clients), newest first, with their state and why they ended.",
  http: { path: "/v1/connections", query: ["limit", "cursor"] },
  auth: { kind: "credential", tier: "administrative", scope: null },
  input: Type.Object({ limit: Limit, cursor: Cursor }),
  output: Type.Object({ items: Type.Array(ConnectionSchema), next_cursor: Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page; null on the last page." }) }, { description: "A page of Connections." }),
  async handler(deps, ctx, input) {
    const page = { resource: "connections", filters: {}, limit: input.limit, cursor: input.cursor };
    return { body: await storePage(deps, ctx, page, (after, limit) => listConnections(deps, deps.stores, ctx, { after, limit }), (c) => c) };
  },
});

const disconnectConnectionOp = defineOperation({
  name: "disconnect_connection",
  summary: "Disconnect a Connection: its access tokens and every refresh token are revoked at once; the client must authorize again.",
  http: { method: "POST", path: "/v1/connections/{connection_id}/disconnect" },
  auth: { kind: "credential", tier: "administrative", scope: "manage_credentials" },
  idempotency: "optional",
  mutates: true,
  input: Type.Object({ connection_id: Type.String({ minLength: 1, maxLength: 64, description: "ULID of the Connection (grant)." }) }),
  output: ConnectionSchema,
  successStatus: 200,
  async handler(deps, ctx, input) {
    let revoked: Credential[] = [];
    const result = await runIdempotent(deps, ctx, async (stores) => {
      const { view, credentials } = await disconnectConnection(deps, stores, ctx, input.connection_id);
      revoked = credentials;
      return { status: 200, body: view };
    });
    forgetCredentials(deps, revoked);
    return result;
  },
});

/** The Connections routes (DESIGN §2b): read with the administrative tier, disconnect with manage_credentials. */
export const CONNECTION_OPERATIONS = [listConnectionsOp, disconnectConnectionOp] as const;
