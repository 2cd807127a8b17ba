import { ACCESS_OPERATIONS } from "./access/operations.ts";
import { MESSAGING_OPERATIONS } from "./messaging/operations.ts";
import { AUDIT_OPERATIONS } from "./audit/operations.ts";
import { POLICY_OPERATIONS } from "./policies/operations.ts";
import type { Operation } from "./operation.ts";
import { WEBHOOK_OPERATIONS } from "./webhooks/operations.ts";
import { SESSION_STATE_OPERATIONS } from "./session-state/operations.ts";
import { NOTICE_OPERATIONS } from "./notices/operations.ts";
import { CONNECTION_OPERATIONS } from "./oauth/operations.ts";

/**
 * THE operation catalogue: every operation of the service, in the order the OpenAPI document
 * and the MCP tool list show them. REST routes, MCP tools, OpenAPI and CLI commands are all
 * derived from this list, so "every REST mutation has an MCP tool" holds by construction.
 * Each area defines its entries in its folder's `operations.ts` (messaging, access, webhooks,
 * policies, audit, session-state record by record, notices, OAuth connections); this file only
 * gathers them, and nothing in the core imports it but the index and tests.
 */
export const OPERATIONS: readonly Operation[] = [...MESSAGING_OPERATIONS, ...ACCESS_OPERATIONS, ...WEBHOOK_OPERATIONS, ...POLICY_OPERATIONS, ...AUDIT_OPERATIONS, ...SESSION_STATE_OPERATIONS, ...NOTICE_OPERATIONS, ...CONNECTION_OPERATIONS];

/** The operation with that name, or undefined. */
export function findOperation(name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.name === name);
}
