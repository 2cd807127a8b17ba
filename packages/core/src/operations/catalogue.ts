import { ACCESS_OPERATIONS } from "./access-operations.ts";
import { MESSAGING_OPERATIONS } from "./messaging-operations.ts";
import { AUDIT_OPERATIONS } from "./audit-operations.ts";
import { POLICY_OPERATIONS } from "./policy-operations.ts";
import type { Operation } from "../operation.ts";
import { WEBHOOK_OPERATIONS } from "./webhook-operations.ts";
import { SESSION_STATE_OPERATIONS } from "./session-state-operations.ts";
import { NOTICE_OPERATIONS } from "./notice-operations.ts";
import { CONNECTION_OPERATIONS } from "./connection-operations.ts";

/**
 * THE operation catalogue: every operation of the service, in the order the OpenAPI document
 * and the MCP tool list show them. REST routes, MCP tools, OpenAPI and CLI commands are all
 * derived from this list, so "every REST mutation has an MCP tool" holds by construction.
 * Each area contributes its own array (messaging, access, ...).
 */
export const OPERATIONS: readonly Operation[] = [...MESSAGING_OPERATIONS, ...ACCESS_OPERATIONS, ...WEBHOOK_OPERATIONS, ...POLICY_OPERATIONS, ...AUDIT_OPERATIONS, ...SESSION_STATE_OPERATIONS, ...NOTICE_OPERATIONS, ...CONNECTION_OPERATIONS];

/** The operation with that name, or undefined. */
export function findOperation(name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.name === name);
}
