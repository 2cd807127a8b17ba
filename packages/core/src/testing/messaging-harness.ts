import type { AiAccount, Workspace } from "../access/model.ts";
import type { Stores, TxRunner, WakeupNotifier } from "../ports.ts";
import { makeAccount, makePerson, makeWorkspace } from "./access-fixtures.ts";

/**
 * What the messaging contract suites (MessageStore, AuditLog, IdempotencyStore, TxRunner,
 * WakeupNotifier) receive from an adapter family.
 *
 * Time: the suites never read a wall clock. "Now" is always `await stores.messages.now()` and
 * every assertion about time is relative to it. To run leases, rate windows and expiries out,
 * they call `advance(ms)`, which must move the adapters' notion of now forward by `ms` relative
 * to every stored timestamp. The in-memory harness advances its ManualClock; the PostgreSQL
 * harness, whose clock cannot move, shifts every stored timestamp (messages, idempotency keys,
 * audit rows) back by `ms` instead. Real time also passes in PostgreSQL while a test runs; the
 * suites leave seconds of slack wherever that matters.
 *
 * Isolation: the suites create a fresh workspace (unique ids, unique emails) per test, so the
 * harness need not be emptied between tests, except that `expireDue` and
 * `workspacesToSeal` see every workspace: the suites only assert about their own rows.
 */
export interface MessagingHarness {
  /** Autocommit stores (every store sharing one database). */
  stores: Stores;
  tx: TxRunner;
  /** The notifier the message store wakes. */
  notifier: WakeupNotifier;
  /** Moves now forward by `ms` relative to everything stored. */
  advance(ms: number): Promise<void>;
}

/** Builds (or hands back) the harness; called before each test. */
export type MessagingHarnessFactory = () => Promise<MessagingHarness>;

/** A seeded workspace with a sender and a recipient account (and a bystander). */
export interface SeededWorkspace {
  workspace: Workspace;
  sender: AiAccount;
  recipient: AiAccount;
  bystander: AiAccount;
}

/** Creates a workspace (maxDeliveries as given, default 10) with three active accounts, through the ports. */
export async function seedWorkspace(stores: Stores, opts?: { maxDeliveries?: number }): Promise<SeededWorkspace> {
  const workspace = makeWorkspace({ maxDeliveries: opts?.maxDeliveries ?? 10 });
  const created = await stores.workspaces.create({ workspace, owner: makePerson(workspace.id) });
  if (created.kind !== "created") throw new Error("seedWorkspace: workspace not created");
  const [sender, recipient, bystander] = [makeAccount(workspace.id), makeAccount(workspace.id), makeAccount(workspace.id)];
  for (const account of [sender, recipient, bystander]) {
    if ((await stores.accounts.create({ account })).kind !== "created") throw new Error("seedWorkspace: account not created");
  }
  return { workspace, sender, recipient, bystander };
}
