/**
 * One in-memory transaction: an undo journal plus commit hooks. In-memory stores bound to a
 * transaction record how to undo each write (`onRollback`) and defer side effects such as
 * wake-ups until commit (`afterCommit`). Stores bound to no transaction (`null`) write
 * immediately (autocommit). Rollback undoes only this transaction's writes, newest first.
 */
export class InMemoryTransaction {
  private undos: (() => void)[] = [];
  private commits: (() => void)[] = [];
  private state: "open" | "committed" | "rolled_back" = "open";
  private resolveSettled!: () => void;
  /** Resolves when the transaction commits or rolls back. */
  readonly settled: Promise<void> = new Promise((resolve) => (this.resolveSettled = resolve));

  /** True until commit or rollback. */
  get open(): boolean {
    return this.state === "open";
  }

  /** Registers how to undo one write. */
  onRollback(undo: () => void): void {
    if (this.state !== "open") throw new Error("transaction is no longer open");
    this.undos.push(undo);
  }

  /** Registers a side effect to run after commit (dropped on rollback). */
  afterCommit(fn: () => void): void {
    if (this.state !== "open") throw new Error("transaction is no longer open");
    this.commits.push(fn);
  }

  /** Commits: keeps the writes and runs the after-commit hooks. */
  commit(): void {
    this.state = "committed";
    this.undos = [];
    const hooks = this.commits;
    this.commits = [];
    this.resolveSettled();
    for (const fn of hooks) fn();
  }

  /** Rolls back: undoes this transaction's writes, newest first. */
  rollback(): void {
    this.state = "rolled_back";
    const undos = this.undos.reverse();
    this.undos = [];
    this.commits = [];
    for (const undo of undos) undo();
    this.resolveSettled();
  }
}

/** Registers `undo` on `tx`, or does nothing outside a transaction (autocommit). */
export function onRollback(tx: InMemoryTransaction | null, undo: () => void): void {
  tx?.onRollback(undo);
}

/** Runs `fn` after `tx` commits, or at once outside a transaction. */
export function afterCommit(tx: InMemoryTransaction | null, fn: () => void): void {
  if (tx) tx.afterCommit(fn);
  else fn();
}

/**
 * A keyed table whose writes are journaled on the given transaction. Values are cloned on the
 * way in and out so callers never alias stored rows.
 */
export class InMemoryTable<V> {
  private readonly rows = new Map<string, V>();

  /** A copy of the row, or undefined. */
  get(key: string): V | undefined {
    const v = this.rows.get(key);
    return v === undefined ? undefined : structuredClone(v);
  }

  /** True when the row exists. */
  has(key: string): boolean {
    return this.rows.has(key);
  }

  /** Copies of every row, in insertion order. */
  values(): V[] {
    return [...this.rows.values()].map((v) => structuredClone(v));
  }

  /** Copies of every row with its key, in insertion order. */
  entries(): [string, V][] {
    return [...this.rows.entries()].map(([k, v]) => [k, structuredClone(v)]);
  }

  /** Inserts or replaces a row; rollback restores what was there. */
  set(tx: InMemoryTransaction | null, key: string, value: V): void {
    const had = this.rows.has(key);
    const before = this.rows.get(key);
    this.rows.set(key, structuredClone(value));
    onRollback(tx, () => {
      if (had) this.rows.set(key, before as V);
      else this.rows.delete(key);
    });
  }

  /** Deletes a row; rollback restores it. */
  delete(tx: InMemoryTransaction | null, key: string): void {
    if (!this.rows.has(key)) return;
    const before = this.rows.get(key) as V;
    this.rows.delete(key);
    onRollback(tx, () => this.rows.set(key, before));
  }
}
