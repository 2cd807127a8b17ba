import type { Person, Workspace } from "../access/model.ts";
import type { PlanName } from "../plans/plan-limits.ts";

/** A person on the wire (DESIGN §2b). Never the password hash or MFA secrets. */
export interface PersonView {
  id: string;
  email: string;
  display_name: string | null;
  role: Person["role"];
  mfa_enabled: boolean;
  created_at: string;
}

/** A person's workspace on the wire: the workspace and its plan. */
export interface PersonWorkspaceView {
  id: string;
  name: string;
  state: Workspace["state"];
  plan: PlanName;
}

/** The wire view of a person. */
export function personView(p: Person): PersonView {
  return { id: p.id, email: p.email, display_name: p.displayName, role: p.role, mfa_enabled: p.mfaEnabledAt !== null, created_at: p.createdAt.toISOString() };
}

/** The wire view of a person's workspace. */
export function personWorkspaceView(w: Workspace, plan: PlanName): PersonWorkspaceView {
  return { id: w.id, name: w.name, state: w.state, plan };
}
