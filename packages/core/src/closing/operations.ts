import { Type } from "@sinclair/typebox";
import type { PersonPrincipal } from "../access/model.ts";
import { definePeopleOperation } from "../operation.ts";
import { EXPORT_FORMAT, exportDocument, recordExport } from "./export-document.ts";
import { closeWorkspace, erasePerson } from "./workspace-closing.ts";

// The closing area of the catalogue (DESIGN §2b): closing the workspace, erasing oneself and the
// export, for a person's session, never MCP tools. The use cases keep their rules (an owner
// closes; a closed workspace cannot close again); `auth` states them in the order they check.

const ANY_ROLE = ["owner", "admin", "viewer"] as const;
const Timestamp = (description: string) => Type.String({ format: "date-time", description });

export const closeWorkspaceOp = definePeopleOperation({
  name: "close_workspace",
  summary: "Closes the workspace (owner session + fresh MFA step-up): every AI account and credential revoked at once; payloads deleted 30 days later; not reversible.",
  http: { method: "DELETE", path: "/v1/workspaces/me" },
  // A frozen workspace may be closed; a closed one is refused by the use case (SVC_WORKSPACE_CLOSED).
  auth: { kind: "person", roles: ["owner"], stepUp: true, closedWorkspaceAllowed: true },
  mutates: true,
  input: Type.Object({}),
  output: Type.Object({
    workspace: Type.Object({ id: Type.String({ description: "ULID of the workspace." }), state: Type.Literal("closed"), closed_at: Timestamp("When the workspace closed.") }),
    payload_deletion_at: Timestamp("When the messages' payloads are deleted (30 days after closing)."),
  }),
  successStatus: 200,
  async handler(deps, ctx) {
    return { body: await closeWorkspace(deps, ctx.principal, { requestId: ctx.requestId }) };
  },
});

export const eraseMeOp = definePeopleOperation({
  name: "erase_me",
  summary: "Erases the signed-in person (session + fresh MFA step-up); the last owner's workspace is frozen and its AI accounts revoked; the workspace record and audit chain stay.",
  http: { method: "DELETE", path: "/v1/me" },
  auth: { kind: "person", roles: ANY_ROLE, stepUp: true, closedWorkspaceAllowed: true },
  mutates: true,
  input: Type.Object({}),
  output: Type.Object({
    erased: Type.Object({ person_id: Type.String({ description: "ULID of the erased person." }), erased_at: Timestamp("When the person was erased.") }),
    workspace: Type.Object({ id: Type.String({ description: "ULID of the workspace." }), state: Type.Union([Type.Literal("active"), Type.Literal("frozen"), Type.Literal("closed")], { description: "The workspace's state afterwards (frozen when the last owner left)." }) }),
  }),
  successStatus: 200,
  async handler(deps, ctx) {
    // The person's sessions ended with them: so does this browser's.
    return { body: await erasePerson(deps, ctx.principal, { requestId: ctx.requestId }), session: { kind: "end" } };
  },
});

export const exportMeOp = definePeopleOperation({
  name: "export_me",
  summary: "One JSON document with the person and everything of the workspace (no secrets), streamed.",
  http: { method: "GET", path: "/v1/me/export" },
  auth: { kind: "person", roles: ANY_ROLE, closedWorkspaceAllowed: true },
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({ format: Type.Literal(EXPORT_FORMAT) }, { additionalProperties: true, description: "The export document (docs/people.md)." }),
  successStatus: 200,
  async handler(deps, ctx) {
    // authorizePersonOperation let only a person's session through.
    const actor = ctx.principal as PersonPrincipal;
    await recordExport(deps, actor, { requestId: ctx.requestId });
    const day = deps.clock.now().toISOString().slice(0, 10);
    return { body: null, chunks: exportDocument(deps, actor), headers: { "Content-Disposition": `attachment; filename="agentq-export-${actor.workspace.id}-${day}.json"` } };
  },
});

/** The closing area's catalogue entries, in the order the OpenAPI document lists them. */
export const CLOSING_OPERATIONS = [closeWorkspaceOp, eraseMeOp, exportMeOp];
