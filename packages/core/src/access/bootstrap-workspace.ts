import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import { accessAuditEntry } from "./access-audit.ts";
import { TIER_MAX_LIFETIME_MS } from "./credential-policy.ts";
import { credentialIssuedAudit, mintCredential } from "./credentials.ts";
import type { AiAccount, Person, Workspace } from "./model.ts";
import { tokenFromSeal } from "./token.ts";
import type { PasswordHasher } from "../ports.ts";
import { parseEmail } from "../people/email.ts";
import { checkPassword } from "../people/password-rules.ts";
import { personAuditEntry } from "../people/people-audit.ts";

/** Scopes of the administrative credential bootstrap issues (DESIGN §2). */
export const BOOTSTRAP_SCOPES = ["manage_ai_accounts", "manage_credentials", "manage_webhooks"] as const;
/** Friendly name of the AI account bootstrap creates. */
export const BOOTSTRAP_ACCOUNT_NAME = "admin";
/** Default dead-lettering threshold of a new workspace (DESIGN §2). */
export const DEFAULT_MAX_DELIVERIES = 10;


/** What `bootstrapWorkspace` returns: the shape `pnpm bootstrap --json` prints (DESIGN §2). */
export interface BootstrapResult {
  workspace_id: string;
  ai_account_id: string;
  credential_id: string;
  /** The administrative credential's plaintext, shown once. */
  token: string;
}


/**
 * Creates a workspace and, in the same transaction, its owner person, an AI account `admin` and
 * an administrative credential (scopes manage_ai_accounts, manage_credentials, manage_webhooks;
 * 90 days), with audit rows `workspace.created`, `ai_account.created` and `credential.issued`
 * (no actor). Emails are compared lower-cased and trimmed. With a password (`pnpm bootstrap
 * --password`), the owner can sign in: the password follows the sign-up rules (12 to 256
 * characters, not common, not containing the email's local part) and is hashed by the given
 * hasher (argon2id), with an audit row `person.password_set`.
 * @throws DomainError SVC_MALFORMED_REQUEST (empty or long workspace name, bad email, password
 *   without a hasher or refused by the rules, details.field), SVC_RESOURCE_CONFLICT (email
 *   already has an account).
 */
export async function bootstrapWorkspace(
  deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "secrets">,
  input: { workspaceName: string; email: string; password?: string | null },
  options: { passwordHasher?: PasswordHasher } = {},
): Promise<BootstrapResult> {
  const workspaceName = input.workspaceName.trim();
  if (workspaceName.length === 0 || workspaceName.length > 200) throw malformed("The workspace name must be 1 to 200 characters.", { field: "workspace" });
  const email = parseEmail(input.email);
  let passwordHash: string | null = null;
  if (input.password !== undefined && input.password !== null) {
    checkPassword(input.password, email);
    if (!options.passwordHasher) throw malformed("A password was given but no password hasher is configured.", { field: "password" });
    passwordHash = await options.passwordHasher.hash(input.password);
  }

  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const workspace: Workspace = { id: deps.ids.next(), name: workspaceName, state: "active", maxDeliveries: DEFAULT_MAX_DELIVERIES, createdAt: now };
    const owner: Person = { id: deps.ids.next(), workspaceId: workspace.id, email, displayName: null, role: "owner", passwordHash, mfaEnabledAt: null, createdAt: now };
    const created = await stores.workspaces.create({ workspace, owner });
    if (created.kind === "email_taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "This email address already owns a workspace.", { field: "email" });

    const account: AiAccount = { id: deps.ids.next(), workspaceId: workspace.id, friendlyName: BOOTSTRAP_ACCOUNT_NAME, state: "active", createdAt: now, updatedAt: now, lastActiveAt: null };
    await stores.accounts.create({ account });
    const { credential, seal } = await mintCredential(deps, stores, {
      workspaceId: workspace.id,
      aiAccountId: account.id,
      tier: "administrative",
      scopes: [...BOOTSTRAP_SCOPES],
      name: "bootstrap",
      expiresAt: new Date(now.getTime() + TIER_MAX_LIFETIME_MS.administrative),
      projectId: null,
      rotatedFromId: null,
      now,
    });

    const actor = { principal: null, requestId: null };
    const rows = [
      accessAuditEntry(deps, actor, { workspaceId: workspace.id, occurredAt: now, activity: "workspace.created", subjectType: "workspace", subjectId: workspace.id, details: { name: workspace.name, owner_person_id: owner.id } }),
      accessAuditEntry(deps, actor, { workspaceId: workspace.id, occurredAt: now, activity: "ai_account.created", subjectType: "ai_account", subjectId: account.id, details: { friendly_name: account.friendlyName } }),
      credentialIssuedAudit(deps, actor, credential),
      ...(passwordHash === null ? [] : [personAuditEntry(deps, { workspaceId: workspace.id, occurredAt: now, activity: "person.password_set", subjectId: owner.id, actorPersonId: null, requestId: null, details: { via: "bootstrap" } })]),
    ];
    for (const entry of rows) await stores.audit.append({ entry });
    return { workspace_id: workspace.id, ai_account_id: account.id, credential_id: credential.id, token: tokenFromSeal(deps.secrets.pepper, credential.tier, seal) };
  });
}

/**
 * Sets a workspace's state for the operator (`agentq admin` freeze / unfreeze): active <->
 * frozen, with an operator-significant audit row `workspace.frozen` / `workspace.unfrozen`. A
 * closed workspace stays closed. Setting the current state again changes nothing.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (closed).
 */
export async function setWorkspaceState(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, input: { workspaceId: string; state: "active" | "frozen"; reason?: string | null }): Promise<Workspace> {
  return deps.tx.run(async (stores) => {
    const current = await stores.workspaces.findById({ workspaceId: input.workspaceId });
    if (current === null) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "Workspace not found.", { resource: "workspace" });
    if (current.state === "closed") throw new DomainError("SVC_RESOURCE_CONFLICT", "A closed workspace cannot change state.", { state: current.state });
    if (current.state === input.state) return current;
    const updated = await stores.workspaces.setState({ workspaceId: current.id, state: input.state });
    if (updated === null) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "Workspace not found.", { resource: "workspace" });
    await stores.audit.append({
      entry: accessAuditEntry(deps, { principal: null, requestId: null }, {
        workspaceId: current.id,
        occurredAt: deps.clock.now(),
        activity: input.state === "frozen" ? "workspace.frozen" : "workspace.unfrozen",
        subjectType: "workspace",
        subjectId: current.id,
        details: { from: current.state, to: input.state, reason: input.reason ?? null },
        operatorSignificant: true,
      }),
    });
    return updated;
  });
}
