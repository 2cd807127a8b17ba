// The REST responses the pages render, as the operations return them (snake_case JSON): the
// core's own wire types where it exports them, so the dashboard reads exactly what an API
// client reads.
import type { AiAccountView, AuditRowView, CredentialDetailView, CredentialView, DeliveryView, EnvelopeView, PolicyView, WebhookView } from "@agentq/core";

/** A page of items. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** An AI account. */
export type AiAccountWire = AiAccountView;

/** A credential record (never the token). */
export type CredentialWire = CredentialView & Partial<Pick<CredentialDetailView, "revoked_at" | "rotated_from_id" | "rotated_to_id">>;

/** What issue and rotate return: the credential and its token, shown once. */
export interface IssuedWire {
  credential: CredentialView;
  token: string;
  mcp_config?: unknown;
}

/** One message of a list: its envelope and effective state. */
export interface MessageItemWire {
  envelope: EnvelopeView;
  state: string;
}

/** A message with its timeline (its audit rows). */
export interface MessageWire extends MessageItemWire {
  timeline: { at: string; activity: string; actor_ai_account_id: string | null; details: Record<string, unknown> }[];
}

/** A webhook with its health and outbox counts. */
export type WebhookWire = WebhookView;

/** A webhook delivery. */
export type DeliveryWire = DeliveryView;

/** A policy version. */
export type PolicyWire = PolicyView;

/** An audit row. */
export type AuditRowWire = AuditRowView;
