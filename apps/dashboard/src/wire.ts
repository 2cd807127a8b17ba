// The REST responses the pages render, as the operations return them (snake_case JSON): the
// core's own wire types where it exports them, so the dashboard reads exactly what an API
// client reads.
import type { AiAccountView, AuditRowView, StatsWindow, WorkspaceStatsView, LessonDetailWire, LessonWire, RuleWire, ConnectionView, CredentialDetailView, CredentialView, DeliveryView, EnvelopeView, PolicyView, WebhookView } from "@agentq/core";

// Lessons, candidates and rules: the core's types derived from the operations' TypeBox schemas.
export type { CandidateWire, LessonDetailWire, LessonWire, RuleWire } from "@agentq/core";

/** A page of items. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** An AI account. */
export type AiAccountWire = AiAccountView;

/** A credential record (never the token). */
export type CredentialWire = CredentialView & Partial<Pick<CredentialDetailView, "revoked_at" | "rotated_from_id" | "rotated_to_id" | "last_used_at">>;

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

/** A message with its lease, its payload's size and its timeline (its audit rows). */
export interface MessageWire extends MessageItemWire {
  lease: { claimed_at: string; expires_at: string; extensions: number; live: boolean } | null;
  payload_bytes: number;
  timeline: { at: string; activity: string; actor_ai_account_id: string | null; details: Record<string, unknown> }[];
}

/** A message an approval policy held (GET /v1/approvals, GET /v1/approvals/{id}): envelope, payload, state and what held it. */
export interface ApprovalWire extends MessageItemWire {
  payload: unknown;
  approval: { policy_id: string; policy_name: string | null; require_step_up: boolean; approvers: string };
}

/** A message's payload (GET /v1/messages/{id}/payload; each read an audit row). */
export interface PayloadWire {
  message_id: string;
  template: string;
  payload: unknown;
}

/** A webhook with its health and outbox counts. */
export type WebhookWire = WebhookView;

/** A webhook delivery. */
export type DeliveryWire = DeliveryView;

/** A policy version. */
export type PolicyWire = PolicyView;

/** An audit row. */
export type AuditRowWire = AuditRowView;

/** The minute series of the workspace over a window (GET /v1/workspaces/me/stats). */
export type WorkspaceStatsWire = WorkspaceStatsView;

/** A window of the minute series: PT1H (the last hour) or P1D (the last day). */
export type StatsWindowWire = StatsWindow;

/** A notice as the affected workspace sees it once disclosed to it (GET /v1/notices, GET /v1/notices/{id}). */
export interface NoticeWire {
  id: string;
  kind: "dsa" | "dmca";
  state: string;
  received_at: string;
  updated_at: string;
  category: string;
  disclosed_at: string | null;
  complaint: { claimant?: string; copyrighted_work?: string | null; infringing_material?: string | null; explanation?: string | null };
  items: { type?: string; id?: string }[];
  decision: { outcome: string; action: string; decided_at: string } | null;
  statement_of_reasons: {
    restriction: { type: string; item_id: string }[];
    facts_and_circumstances: string;
    based_on_notice: { id: string; kind: string; received_at: string };
    automated_means: boolean;
    ground: { type: string; legal_basis: string; category?: string };
    decided_at: string;
    redress: string;
  } | null;
  measures: { type: string; item_id: string; applied_at: string; lifted_at: string | null }[];
  counter_notice: { filed_at: string; elements: Record<string, string | boolean> } | null;
  restoration: { earliest_at: string; latest_at: string } | null;
  court_action: { recorded_at: string } | null;
}

/** A Connection: an MCP client's OAuth grant (GET /v1/connections). */
export type ConnectionWire = ConnectionView;

/** Who recorded a session-state record: the AI account of the credential. */
export type CreatedByWire = LessonWire["created_by"];

/** An observation of a lesson. */
export type ObservationWire = LessonDetailWire["observations"][number];

/** A rule's triggers: every populated dimension must match a change. */
export type RuleTriggersWire = RuleWire["triggers"];
