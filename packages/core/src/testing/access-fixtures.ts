import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { AiAccount, Credential, Person, Workspace } from "../access/model.ts";
import { ulidSource } from "../ids.ts";
import type { IdSource } from "../ids.ts";

const fixtureIds: IdSource = ulidSource();

/** A fresh ULID for fixtures (monotonic within the process, so creation order is id order). */
export function fixtureId(): string {
  return fixtureIds.next();
}

/** A workspace record for tests; unique id, state active, maxDeliveries 10. */
export function makeWorkspace(overrides: Partial<Workspace> = {}): Workspace {
  const id = overrides.id ?? fixtureId();
  return { id, name: `ws-${id.toLowerCase()}`, state: "active", maxDeliveries: 10, createdAt: new Date("2026-01-01T00:00:00.000Z"), ...overrides };
}

/** An owner person of `workspaceId` with an email unique across the process. */
export function makePerson(workspaceId: string, overrides: Partial<Person> = {}): Person {
  const id = overrides.id ?? fixtureId();
  return { id, workspaceId, email: `owner-${id.toLowerCase()}@example.test`, displayName: null, role: "owner", passwordHash: null, mfaEnabledAt: null, createdAt: new Date("2026-01-01T00:00:00.000Z"), ...overrides };
}

/** An active AI account of `workspaceId` with a unique friendly name. */
export function makeAccount(workspaceId: string, overrides: Partial<AiAccount> = {}): AiAccount {
  const id = overrides.id ?? fixtureId();
  const at = new Date("2026-01-01T00:00:00.000Z");
  return { id, workspaceId, friendlyName: `agent-${id.toLowerCase()}`, state: "active", createdAt: at, updatedAt: at, lastActiveAt: null, ...overrides };
}

/** An active operational credential of `account` with a unique token hash (64 hex characters, like a real one). */
export function makeCredential(account: Pick<AiAccount, "id" | "workspaceId">, overrides: Partial<Credential> = {}): Credential {
  const id = overrides.id ?? fixtureId();
  return {
    id,
    workspaceId: account.workspaceId,
    aiAccountId: account.id,
    tier: "operational",
    scopes: ["send", "get_pending", "ack"],
    name: `cred-${id.toLowerCase()}`,
    state: "active",
    tokenHash: bytesToHex(sha256(utf8ToBytes(`token-${id}`))),
    expiresAt: new Date("2027-01-01T00:00:00.000Z"),
    projectId: null,
    createdAt: new Date("2026-01-01T00:00:00.000Z"),
    revokedAt: null,
    rotatedFromId: null,
    rotatedToId: null,
    lastUsedAt: null,
    ...overrides,
  };
}
