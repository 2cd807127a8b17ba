import type { ApprovalHolds, PolicyKind } from "./approval-holds.ts";

/** One version of a workspace policy: the current one, as stores return it. */
export interface Policy {
  workspaceId: string;
  /** ULID of the policy (stable across its versions). */
  id: string;
  /** The policy's name, unique in the workspace. */
  name: string;
  /** 1 for the first publication, then +1 for each. */
  version: number;
  /** Whether AI accounts must acknowledge this version before they send (never for an approval policy). */
  required: boolean;
  /** `acknowledgement` (agents read and acknowledge it) or `approval` (it holds matching sends for a person's approval). */
  kind: PolicyKind;
  /** What an approval policy holds; null for an acknowledgement policy. */
  holds: ApprovalHolds | null;
  /** The policy text. */
  body: string;
  publishedAt: Date;
  /** The AI account that published the version, or null (operator). */
  publishedBy: string | null;
}

/** A policy as one AI account sees it: its current version and what the account acknowledged. */
export interface PolicyListItem {
  policy: Policy;
  /** The version the account last acknowledged, or null. */
  acknowledgedVersion: number | null;
  acknowledgedAt: Date | null;
}

/** Limits of policy fields. */
export const POLICY_LIMITS = {
  /** Names follow the friendly-name pattern of AI accounts. */
  namePattern: /^[a-z0-9][a-z0-9._-]{0,62}$/,
  /** Longest policy text, in characters. */
  bodyMaxLength: 65_536,
} as const;
