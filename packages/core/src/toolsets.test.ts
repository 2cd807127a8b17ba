import { describe, expect, it } from "vitest";
import type { CredentialPrincipal, Tier } from "./access/model.ts";
import { OPERATIONS, defaultToolsets, scopesForToolsets, scopesOfToolset, toolsetOf, toolsetsOfScopes } from "./catalogue.ts";
import { parseToolsets } from "./toolsets.ts";

const namesOf = (toolset: string) => OPERATIONS.filter((op) => op.auth.kind === "credential" && toolsetOf(op) === toolset).map((op) => op.name);

function caller(tier: Tier, scopes: string[]): CredentialPrincipal {
  return { credential: { tier, scopes } } as unknown as CredentialPrincipal;
}

describe("toolsets of the catalogue (DESIGN §2c)", () => {
  it("puts the messaging tools DESIGN names in messaging, and every administrative-tier operation, audit verify, export and proofs in admin", () => {
    expect(namesOf("messaging")).toEqual(expect.arrayContaining(["send", "validate", "get_pending", "ack", "ack_batch", "nack", "extend_lease", "hand_off", "list_messages", "get_message", "get_thread", "list_recipients", "list_templates", "get_template", "get_policies", "acknowledge_policies", "browse_audit_log", "get_message_receipt"]));
    expect(namesOf("admin")).toEqual(expect.arrayContaining(["list_dead_letters", "release_dead_letter", "create_ai_account", "issue_credential", "revoke_credential", "create_webhook", "publish_policy", "verify_audit_log", "export_audit_chain", "get_audit_checkpoint", "get_audit_inclusion_proof", "get_audit_consistency_proof", "list_connections"]));
    expect(namesOf("session_state")).toEqual(expect.arrayContaining(["create_project", "start_build_session", "record_decision", "create_backlog_item", "create_lesson", "derive_rule", "get_usage", "upload_import"]));
    for (const op of OPERATIONS) if (op.auth.kind === "credential" && op.auth.tier === "administrative") expect(toolsetOf(op), op.name).toBe("admin");
    expect(toolsetOf({ name: "not_in_the_catalogue" })).toBe("admin");
  });

  it("derives each toolset's scopes from its operations", () => {
    expect(scopesOfToolset("messaging")).toEqual(expect.arrayContaining(["send", "get_pending", "ack", "view_audit_log"]));
    expect(scopesOfToolset("messaging")).not.toContain("write_session_state");
    expect(scopesOfToolset("session_state").sort()).toEqual(["manage_projects", "write_session_state"]);
    expect(scopesOfToolset("admin")).toEqual(expect.arrayContaining(["manage_ai_accounts", "manage_credentials", "manage_webhooks"]));
  });

  it("shows by default admin by tier, messaging and session_state by scope, and every toolset to a credential none of whose scopes opens one", () => {
    expect(defaultToolsets(caller("operational", ["send"]))).toEqual(["messaging"]);
    // view_audit_log gates verify/export too, yet an operational credential is never shown admin by default.
    expect(defaultToolsets(caller("operational", ["view_audit_log"]))).toEqual(["messaging"]);
    expect(defaultToolsets(caller("operational", ["write_session_state", "ack"]))).toEqual(["messaging", "session_state"]);
    expect(defaultToolsets(caller("administrative", ["manage_webhooks"]))).toEqual(["admin"]);
    expect(defaultToolsets(caller("operational", []))).toEqual(["messaging", "session_state", "admin"]);
    expect(defaultToolsets(caller("operational", ["manage_dlq"]))).toEqual(["messaging", "session_state", "admin"]);
  });
});

describe("parseToolsets", () => {
  it("reads comma-separated lists, trims names, ignores empty entries, and orders as TOOLSETS", () => {
    expect(parseToolsets(["session_state, messaging", "messaging,,"], "toolsets")).toEqual(["messaging", "session_state"]);
    expect(parseToolsets([], "toolsets")).toBeNull();
    expect(parseToolsets([" , "], "toolsets")).toBeNull();
  });

  it("refuses an unknown name (case matters) or more than 16 names with SVC_MALFORMED_REQUEST", () => {
    expect(() => parseToolsets(["messaging,Admin"], "X-MCP-Toolsets")).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST", details: { field: "X-MCP-Toolsets", unknown: ["Admin"], known: ["messaging", "session_state", "admin"] } }));
    expect(() => parseToolsets([Array.from({ length: 17 }, () => "admin").join(",")], "toolsets")).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST" }));
    expect(() => parseToolsets(["x".repeat(10_000)], "toolsets")).toThrow(expect.objectContaining({ details: expect.objectContaining({ unknown: ["x".repeat(64)] }) }));
  });
});

describe("choosing toolsets for an OAuth grant", () => {
  it("offers messaging and session_state when the grant asks for one of their scopes, never admin", () => {
    expect(toolsetsOfScopes(["send", "view_audit_log"])).toEqual(["messaging"]);
    expect(toolsetsOfScopes(["send", "write_session_state"])).toEqual(["messaging", "session_state"]);
    expect(toolsetsOfScopes([])).toEqual([]);
  });

  it("keeps the scopes of the chosen toolsets and those of no offered toolset, and leaves out the others", () => {
    const scopes = ["send", "view_audit_log", "manage_projects", "write_session_state"];
    expect(scopesForToolsets(scopes, ["messaging", "session_state"], ["messaging"])).toEqual(["send", "view_audit_log"]);
    expect(scopesForToolsets(scopes, ["messaging", "session_state"], ["session_state"])).toEqual(["manage_projects", "write_session_state"]);
    expect(scopesForToolsets(scopes, ["messaging"], [])).toEqual(["manage_projects", "write_session_state"]);
    expect(scopesForToolsets(scopes, ["messaging", "session_state"], [])).toEqual([]);
  });
});
