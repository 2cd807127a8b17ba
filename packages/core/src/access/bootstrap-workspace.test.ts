import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { testPasswordHasher } from "../testing/test-password-hasher.ts";
import { DAY_MS } from "../time/duration.ts";
import { createAuthenticator } from "./authenticate.ts";
import { bootstrapWorkspace, setWorkspaceState } from "./bootstrap-workspace.ts";

const anyString: unknown = expect.any(String);
const matching = (re: RegExp): unknown => expect.stringMatching(re);

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  return "no error";
}

const fakeHasher = testPasswordHasher();

describe("bootstrapWorkspace", () => {
  it("creates the workspace, its owner, an admin account and a 90-day administrative credential", async () => {
    const world = createInMemoryDeps();
    const result = await bootstrapWorkspace(world.deps, { workspaceName: " Acme ", email: " Owner@Example.TEST ", password: "correct horse battery" }, { passwordHasher: fakeHasher });
    expect(result).toEqual({ workspace_id: anyString, ai_account_id: anyString, credential_id: anyString, token: matching(/^agq_ad_[A-Za-z0-9_-]{43}$/) });

    const principal = await createAuthenticator(world.deps).authenticate(`Bearer ${result.token}`);
    expect(principal.workspace).toMatchObject({ id: result.workspace_id, name: "Acme", state: "active", maxDeliveries: 10 });
    expect(principal.account).toMatchObject({ id: result.ai_account_id, friendlyName: "admin", state: "active" });
    expect(principal.credential).toMatchObject({
      id: result.credential_id,
      tier: "administrative",
      scopes: ["manage_ai_accounts", "manage_credentials", "manage_webhooks"],
      expiresAt: new Date(world.clock.now().getTime() + 90 * DAY_MS),
      projectId: null,
    });
    const owner = await world.deps.stores.workspaces.findOwner({ workspaceId: result.workspace_id });
    expect(owner).toMatchObject({ email: "owner@example.test", role: "owner" });
    expect(await fakeHasher.verify(owner?.passwordHash ?? null, "correct horse battery")).toBe(true);
    const rows = await world.deps.stores.audit.list({ workspaceId: result.workspace_id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
    expect(rows.map((r) => r.activity).sort()).toEqual(["ai_account.created", "credential.issued", "person.password_set", "workspace.created"]);
    expect(JSON.stringify(rows)).not.toContain(result.token);
  });

  it("stores no password hash without a password", async () => {
    const world = createInMemoryDeps();
    const result = await bootstrapWorkspace(world.deps, { workspaceName: "solo", email: "solo@example.test" });
    expect((await world.deps.stores.workspaces.findOwner({ workspaceId: result.workspace_id }))?.passwordHash).toBeNull();
  });

  it("refuses an email that already owns a workspace (409), ignoring case, and writes nothing", async () => {
    const world = createInMemoryDeps();
    await bootstrapWorkspace(world.deps, { workspaceName: "one", email: "dup@example.test" });
    expect(await codeOf(bootstrapWorkspace(world.deps, { workspaceName: "two", email: "DUP@example.test" }))).toBe("SVC_RESOURCE_CONFLICT");
    expect(world.tables.access.workspaces.values()).toHaveLength(1);
    expect(world.tables.access.accounts.values()).toHaveLength(1);
    expect(world.tables.access.credentials.values()).toHaveLength(1);
  });

  it("refuses bad input with 400", async () => {
    const world = createInMemoryDeps();
    expect(await codeOf(bootstrapWorkspace(world.deps, { workspaceName: "  ", email: "a@example.test" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(bootstrapWorkspace(world.deps, { workspaceName: "w", email: "not-an-email" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(bootstrapWorkspace(world.deps, { workspaceName: "w", email: "a@example.test", password: "short" }, { passwordHasher: fakeHasher }))).toBe("SVC_MALFORMED_REQUEST");
    expect(await codeOf(bootstrapWorkspace(world.deps, { workspaceName: "w", email: "a@example.test", password: "long enough" }))).toBe("SVC_MALFORMED_REQUEST");
    expect(world.tables.access.workspaces.values()).toHaveLength(0);
  });
});

describe("setWorkspaceState", () => {
  it("freezes and unfreezes a workspace for the operator, with operator-significant audit rows", async () => {
    const world = createInMemoryDeps();
    const auth = createAuthenticator(world.deps);
    const ws = await bootstrapWorkspace(world.deps, { workspaceName: "w", email: "w@example.test" });
    const header = `Bearer ${ws.token}`;
    expect((await setWorkspaceState(world.deps, { workspaceId: ws.workspace_id, state: "frozen", reason: "abuse report" })).state).toBe("frozen");
    expect(await codeOf(auth.authenticate(header))).toBe("SVC_FROZEN");
    expect((await setWorkspaceState(world.deps, { workspaceId: ws.workspace_id, state: "frozen" })).state).toBe("frozen");
    expect((await setWorkspaceState(world.deps, { workspaceId: ws.workspace_id, state: "active" })).state).toBe("active");
    await expect(auth.authenticate(header)).resolves.toBeDefined();
    const rows = await world.deps.stores.audit.list({ workspaceId: ws.workspace_id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
    const operatorRows = rows.filter((r) => r.operatorSignificant);
    expect(operatorRows.map((r) => r.activity).sort()).toEqual(["workspace.frozen", "workspace.unfrozen"]);
    const visible = await world.deps.stores.audit.list({ workspaceId: ws.workspace_id, activity: null, messageId: null, includeOperatorSignificant: false, after: null, limit: 10 });
    expect(visible.map((r) => r.activity)).not.toContain("workspace.frozen");
  });

  it("refuses a missing workspace (404) and a closed one (409)", async () => {
    const world = createInMemoryDeps();
    expect(await codeOf(setWorkspaceState(world.deps, { workspaceId: "01JNSUCHWSPACE000000000000", state: "frozen" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    const ws = await bootstrapWorkspace(world.deps, { workspaceName: "w", email: "w@example.test" });
    await world.deps.stores.workspaces.setState({ workspaceId: ws.workspace_id, state: "closed" });
    expect(await codeOf(setWorkspaceState(world.deps, { workspaceId: ws.workspace_id, state: "active" }))).toBe("SVC_RESOURCE_CONFLICT");
  });
});
