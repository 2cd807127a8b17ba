import type { Stores, TxRunner } from "../ports.ts";
import { InMemoryTransaction } from "./in-memory-transaction.ts";

/**
 * In-memory TxRunner. Transactions run one at a time (a promise-chain mutex), each with its own
 * undo journal: when `fn` throws, only that transaction's writes are undone. Writes made
 * outside any transaction (autocommit stores) are never undone. `bind` builds the stores of one
 * transaction (see `createInMemoryDeps`).
 */
export class InMemoryTxRunner implements TxRunner {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly bind: (tx: InMemoryTransaction) => Stores) {}

  async run<T>(fn: (stores: Stores) => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const tx = new InMemoryTransaction();
    try {
      const out = await fn(this.bind(tx));
      tx.commit();
      return out;
    } catch (e) {
      tx.rollback();
      throw e;
    } finally {
      release();
    }
  }
}
