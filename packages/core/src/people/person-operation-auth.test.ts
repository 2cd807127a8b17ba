import { describe, expect, it } from "vitest";
import type { PersonPrincipal, Principal, Role, Workspace } from "../access/model.ts";
import { isDomainError } from "../errors.ts";
import type { OperationAuth } from "../operation.ts";
import { makePerson, makeWorkspace } from "../testing/access-fixtures.ts";
import { authorizePersonOperation } from "./person-access.ts";

// The rule of an operation for a person's session (issue 27), in the order the people's use cases
// check it: the session, then the step-up, then the role, then the workspace's state.

const NOW = new Date("2026-06-01T12:00:00.000Z");
type PersonAuth = Extract<OperationAuth, { kind: "person" }>;

function principal(p: { role?: Role; workspace?: Partial<Workspace>; mfa?: boolean; stepUpUntil?: Date | null } = {}): PersonPrincipal {
  const workspace = makeWorkspace(p.workspace);
  const person = makePerson(workspace.id, { role: p.role ?? "owner", mfaEnabledAt: p.mfa === true ? NOW : null });
  return {
    kind: "person",
    workspace,
    person,
    session: { id: "s1", workspaceId: workspace.id, personId: person.id, stage: "active", tokenHash: "", createdWithMfa: false, createdAt: NOW, lastSeenAt: NOW, expiresAt: new Date(NOW.getTime() + 3_600_000), stepUpUntil: p.stepUpUntil ?? null, endedAt: null },
  };
}

function refusal(who: Principal, auth: PersonAuth): { code: string; details: unknown } | null {
  try {
    authorizePersonOperation(who, auth, "some_operation", NOW);
    return null;
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { code: e.code, details: e.details };
  }
}

describe("authorizePersonOperation", () => {
  const admins: PersonAuth = { kind: "person", roles: ["owner", "admin"] };

  it("refuses a credential (403 SVC_TIER_INSUFFICIENT, a session required) and lets a session of the roles through", () => {
    const credential = { kind: "credential" } as unknown as Principal;
    expect(refusal(credential, admins)).toEqual({ code: "SVC_TIER_INSUFFICIENT", details: { required: "session" } });
    expect(refusal(principal({ role: "admin" }), admins)).toBeNull();
    expect(refusal(principal({ role: "viewer" }), admins)).toEqual({ code: "SVC_TIER_INSUFFICIENT", details: { role: "viewer" } });
  });

  it("refuses a frozen or closed workspace unless the operation allows it; the role is checked first", () => {
    expect(refusal(principal({ workspace: { state: "frozen" } }), admins)?.code).toBe("SVC_FROZEN");
    expect(refusal(principal({ workspace: { state: "closed", closedAt: NOW } }), admins)?.code).toBe("SVC_WORKSPACE_CLOSED");
    expect(refusal(principal({ role: "viewer", workspace: { state: "frozen" } }), admins)?.code).toBe("SVC_TIER_INSUFFICIENT");
    expect(refusal(principal({ workspace: { state: "closed", closedAt: NOW } }), { ...admins, closedWorkspaceAllowed: true })).toBeNull();
  });

  it("asks for a fresh step-up before the role (as closing and the counter-notice always did)", () => {
    const ownerStepUp: PersonAuth = { kind: "person", roles: ["owner"], stepUp: true };
    expect(refusal(principal({ role: "viewer" }), ownerStepUp)).toEqual({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "mfa_not_enabled" } });
    expect(refusal(principal({ mfa: true, stepUpUntil: NOW }), ownerStepUp)).toEqual({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "step_up_expired" } });
    const fresh = new Date(NOW.getTime() + 60_000);
    expect(refusal(principal({ role: "admin", mfa: true, stepUpUntil: fresh }), ownerStepUp)).toEqual({ code: "SVC_TIER_INSUFFICIENT", details: { role: "admin" } });
    expect(refusal(principal({ mfa: true, stepUpUntil: fresh }), ownerStepUp)).toBeNull();
  });
});
