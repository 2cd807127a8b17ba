import { ACCESS_OPERATIONS } from "./access/operations.ts";
import type { Principal, Scope } from "./access/model.ts";
import { MESSAGING_OPERATIONS } from "./messaging/operations.ts";
import { AUDIT_OPERATIONS } from "./audit/operations.ts";
import { POLICY_OPERATIONS } from "./policies/operations.ts";
import type { Operation } from "./operation.ts";
import { WEBHOOK_OPERATIONS } from "./webhooks/operations.ts";
import { SESSION_STATE_OPERATIONS } from "./session-state/operations.ts";
import { NOTICE_OPERATIONS } from "./notices/operations.ts";
import { CONNECTION_OPERATIONS } from "./oauth/operations.ts";
import { TELEMETRY_OPERATIONS } from "./telemetry/operations.ts";
import { PEOPLE_OPERATIONS } from "./people/operations.ts";
import { AUTH_OPERATIONS } from "./people/auth-operations.ts";
import { OIDC_OPERATIONS } from "./oidc/operations.ts";
import { CLOSING_OPERATIONS } from "./closing/operations.ts";
import { TOOLSETS, type Toolset } from "./toolsets.ts";

/**
 * The catalogue's areas, each with the toolset its operations belong to (DESIGN §2c), in the
 * order the OpenAPI document and the MCP tool list show them. Within an area, an operation that
 * needs the administrative tier belongs to `admin` whatever the area's toolset (dead letters,
 * AI accounts and credentials, policy publishing); `also` names the operations of an area that
 * belong to another toolset. The audit area is `admin` (verification, export, checkpoints and
 * proofs: DESIGN's "audit verify and export") but for browsing the log and a message's receipt,
 * which an agent uses beside its messages.
 */
const AREAS: readonly { toolset: Toolset; operations: readonly Operation[]; also?: Readonly<Record<string, Toolset>> }[] = [
  { toolset: "messaging", operations: MESSAGING_OPERATIONS },
  { toolset: "messaging", operations: ACCESS_OPERATIONS },
  { toolset: "admin", operations: WEBHOOK_OPERATIONS },
  { toolset: "messaging", operations: POLICY_OPERATIONS },
  { toolset: "admin", operations: AUDIT_OPERATIONS, also: { browse_audit_log: "messaging", get_message_receipt: "messaging" } },
  { toolset: "session_state", operations: SESSION_STATE_OPERATIONS },
  { toolset: "admin", operations: NOTICE_OPERATIONS },
  { toolset: "admin", operations: CONNECTION_OPERATIONS },
  { toolset: "admin", operations: TELEMETRY_OPERATIONS },
  // A person's session operations: never MCP tools (`surfaces`), so no toolset offers them.
  { toolset: "admin", operations: AUTH_OPERATIONS },
  { toolset: "admin", operations: OIDC_OPERATIONS },
  { toolset: "admin", operations: PEOPLE_OPERATIONS },
  { toolset: "admin", operations: CLOSING_OPERATIONS },
];

/**
 * THE operation catalogue: every operation of the service, in the order the OpenAPI document
 * and the MCP tool list show them. REST routes, MCP tools, OpenAPI and CLI commands are all
 * derived from this list, so "every REST mutation has an MCP tool" holds by construction.
 * Each area defines its entries in its folder's `operations.ts` (messaging, access, webhooks,
 * policies, audit, session-state record by record, notices, OAuth connections, a browser's
 * sign-in in people/auth-operations.ts, people, OIDC, closing); this file only gathers them (and
 * says which toolset each belongs to: the people's operations are no MCP tools, so no toolset
 * offers them), and nothing in the core imports it but the index and tests.
 */
export const OPERATIONS: readonly Operation[] = AREAS.flatMap((a) => a.operations);

const TOOLSET_BY_NAME: ReadonlyMap<string, Toolset> = new Map(
  AREAS.flatMap((a) => a.operations.map((op) => [op.name, op.auth.kind === "credential" && op.auth.tier === "administrative" ? "admin" : (a.also?.[op.name] ?? a.toolset)] as const)),
);

/** The operation with that name, or undefined. */
export function findOperation(name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.name === name);
}

/** The toolset a catalogue operation belongs to (`admin` for an operation the catalogue does not hold: never offered by mistake). */
export function toolsetOf(op: Pick<Operation, "name">): Toolset {
  return TOOLSET_BY_NAME.get(op.name) ?? "admin";
}

const SCOPES_BY_TOOLSET: ReadonlyMap<Toolset, readonly Scope[]> = new Map(
  TOOLSETS.map((t) => [t, [...new Set(OPERATIONS.flatMap((op) => (op.auth.kind === "credential" && op.auth.scope !== null && toolsetOf(op) === t ? [op.auth.scope] : [])))]] as const),
);

/** The scopes that gate the operations of a toolset (the scopes a credential needs to use it), in catalogue order. */
export function scopesOfToolset(toolset: Toolset): Scope[] {
  return [...(SCOPES_BY_TOOLSET.get(toolset) ?? [])];
}

/**
 * The toolsets a caller sees when it names none (DESIGN §2c: every toolset its scopes allow):
 * `admin` for an administrative credential; `messaging` and `session_state` for a credential
 * holding a scope that gates one of their operations. A credential none of whose scopes gates
 * a toolset (an operational one with no scope, which may only read) sees every toolset, filtered
 * tool by tool like any other. A person's session is not an MCP caller: it sees every toolset.
 */
export function defaultToolsets(principal: Principal): Toolset[] {
  if (principal.kind === "person") return [...TOOLSETS];
  const held = new Set<string>(principal.credential.scopes);
  const allowed = TOOLSETS.filter((t) => (t === "admin" ? principal.credential.tier === "administrative" : scopesOfToolset(t).some((s) => held.has(s))));
  return allowed.length === 0 ? [...TOOLSETS] : allowed;
}

/**
 * The toolsets a person may choose for an operational grant of `scopes` (the OAuth consent page,
 * DESIGN §2c): `messaging` and `session_state` when the grant asks for one of their scopes.
 * `admin` goes by tier, and an OAuth grant is operational.
 */
export function toolsetsOfScopes(scopes: readonly string[]): Toolset[] {
  return TOOLSETS.filter((t) => t !== "admin" && scopesOfToolset(t).some((s) => scopes.includes(s)));
}

/**
 * The scopes of a grant once its holder chose `chosen` of the `offered` toolsets: a scope is left
 * out when it opens only toolsets offered and not chosen (a scope of no offered toolset is kept).
 */
export function scopesForToolsets(scopes: readonly string[], offered: readonly Toolset[], chosen: readonly Toolset[]): string[] {
  const kept = new Set<string>(chosen.filter((t) => offered.includes(t)).flatMap((t) => scopesOfToolset(t)));
  const dropped = new Set<string>(offered.filter((t) => !chosen.includes(t)).flatMap((t) => scopesOfToolset(t)));
  return scopes.filter((s) => kept.has(s) || !dropped.has(s));
}
