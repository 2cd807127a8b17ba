import type { AiAccount } from "../access/model.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { WorkspacePlan } from "../plans/plan-limits.ts";
import type { Policy, PolicyListItem } from "../policies/policy.ts";
import type { ApprovalHolds, PolicyKind } from "../policies/approval-holds.ts";
import type { PlanStore, PolicyStore } from "../ports.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

interface PolicyRow {
  workspaceId: string;
  id: string;
  name: string;
  versions: Policy[];
}

interface AckRow {
  version: number;
  acknowledgedAt: Date;
}

/** The rows behind InMemoryPolicyStore and InMemoryPlanStore. */
export class InMemoryGuardRailTables {
  /** Keyed by `workspaceId/policyId`. */
  readonly policies = new InMemoryTable<PolicyRow>();
  /** Keyed by `workspaceId/policyId/accountId`. */
  readonly acknowledgements = new InMemoryTable<AckRow>();
  /** Keyed by workspace id. */
  readonly plans = new InMemoryTable<WorkspacePlan>();
}

const current = (row: PolicyRow): Policy => row.versions[row.versions.length - 1] as Policy;

// Each method reads and writes synchronously between its first and last line, so each call is
// atomic with respect to other calls, as a single statement (or a row lock) is in PostgreSQL.

/** In-memory PolicyStore. */
export class InMemoryPolicyStore implements PolicyStore {
  constructor(
    private readonly tables: InMemoryGuardRailTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async publish(p: { workspaceId: string; name: string; newId: string; required: boolean; kind: PolicyKind; holds: ApprovalHolds | null; body: string; publishedAt: Date; publishedBy: string | null }): Promise<Policy> {
    const existing = this.tables.policies.values().find((r) => r.workspaceId === p.workspaceId && r.name === p.name);
    const row: PolicyRow = existing ?? { workspaceId: p.workspaceId, id: p.newId, name: p.name, versions: [] };
    const policy: Policy = { workspaceId: p.workspaceId, id: row.id, name: p.name, version: row.versions.length + 1, required: p.required, kind: p.kind, holds: p.holds, body: p.body, publishedAt: p.publishedAt, publishedBy: p.publishedBy };
    row.versions.push(policy);
    this.tables.policies.set(this.tx, `${p.workspaceId}/${row.id}`, row);
    return policy;
  }

  async listApproval(p: { workspaceId: string }): Promise<Policy[]> {
    return this.tables.policies
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && current(r).kind === "approval")
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map(current);
  }

  async findCurrent(p: { workspaceId: string; policyId: string }): Promise<Policy | null> {
    const row = this.tables.policies.get(`${p.workspaceId}/${p.policyId}`);
    return row === undefined ? null : current(row);
  }

  async listCurrent(p: { workspaceId: string; accountId: string; after: string | null; limit: number }): Promise<PolicyListItem[]> {
    return this.tables.policies
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && (p.after === null || r.name > p.after))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, p.limit + 1)
      .map((r) => {
        const ack = this.tables.acknowledgements.get(`${p.workspaceId}/${r.id}/${p.accountId}`);
        return { policy: current(r), acknowledgedVersion: ack?.version ?? null, acknowledgedAt: ack?.acknowledgedAt ?? null };
      });
  }

  async acknowledge(p: { workspaceId: string; policyId: string; accountId: string; version: number; now: Date }): Promise<{ kind: "acknowledged"; policy: Policy; acknowledgedAt: Date } | { kind: "stale"; current: Policy } | { kind: "unknown_version"; current: Policy } | { kind: "not_found" }> {
    const row = this.tables.policies.get(`${p.workspaceId}/${p.policyId}`);
    if (row === undefined) return { kind: "not_found" };
    const policy = current(row);
    if (p.version > policy.version) return { kind: "unknown_version", current: policy };
    if (p.version < policy.version) return { kind: "stale", current: policy };
    this.tables.acknowledgements.set(this.tx, `${p.workspaceId}/${p.policyId}/${p.accountId}`, { version: p.version, acknowledgedAt: p.now });
    return { kind: "acknowledged", policy, acknowledgedAt: p.now };
  }

  async listAcknowledgements(p: { workspaceId: string; policyId: string; after: string | null; limit: number }): Promise<{ accountId: string; version: number; acknowledgedAt: Date }[]> {
    const prefix = `${p.workspaceId}/${p.policyId}/`;
    return this.tables.acknowledgements
      .entries()
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, ack]) => ({ accountId: key.slice(prefix.length), version: ack.version, acknowledgedAt: ack.acknowledgedAt }))
      .filter((a) => p.after === null || a.accountId > p.after)
      .sort((a, b) => (a.accountId < b.accountId ? -1 : a.accountId > b.accountId ? 1 : 0))
      .slice(0, p.limit + 1);
  }

  async unacknowledgedRequired(p: { workspaceId: string; accountId: string; limit: number }): Promise<{ policyId: string; name: string; version: number }[]> {
    return this.tables.policies
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && current(r).required && this.tables.acknowledgements.get(`${p.workspaceId}/${r.id}/${p.accountId}`)?.version !== current(r).version)
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .slice(0, p.limit)
      .map((r) => ({ policyId: r.id, name: r.name, version: current(r).version }));
  }
}

/** In-memory PlanStore, counting over the in-memory access and audit tables. */
export class InMemoryPlanStore implements PlanStore {
  constructor(
    private readonly tables: InMemoryGuardRailTables,
    private readonly sources: { accounts: InMemoryTable<AiAccount>; audit: InMemoryTable<NewAuditEntry> },
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async findWorkspacePlan(p: { workspaceId: string }): Promise<WorkspacePlan | null> {
    return this.tables.plans.get(p.workspaceId) ?? null;
  }

  async setWorkspacePlan(p: { plan: WorkspacePlan; now: Date }): Promise<void> {
    this.tables.plans.set(this.tx, p.plan.workspaceId, p.plan);
  }

  async countLiveAccounts(p: { workspaceId: string }): Promise<number> {
    return this.sources.accounts.values().filter((a) => a.workspaceId === p.workspaceId && a.state !== "revoked").length;
  }

  async countMessagesAccepted(p: { workspaceId: string; from: Date; to: Date }): Promise<number> {
    return this.sources.audit.values().filter((r) => r.workspaceId === p.workspaceId && r.activity === "message.sent" && r.occurredAt >= p.from && r.occurredAt < p.to).length;
  }
}
