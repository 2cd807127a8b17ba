import { DomainError } from "../../errors.ts";
import type { ReplaceResult } from "../../ports.ts";

/** Attempts of a compare-and-set write before a concurrent writer is reported (409). */
const MAX_ATTEMPTS = 4;

/**
 * Read-decide-write with compare-and-set: reads the record, lets `decide` return the new record
 * (or throw a refusal), and writes it under the version it read; when a concurrent write won,
 * reads again and decides again (the decision may now be a refusal).
 * @throws DomainError whatever `decide` throws; SVC_RESOURCE_CONFLICT (details.reason
 *   `concurrent_write`) when every attempt lost.
 */
export async function compareAndSet<T extends { version: number }>(read: () => Promise<T>, decide: (current: T) => T | Promise<T>, write: (next: T, expectedVersion: number) => Promise<ReplaceResult>): Promise<{ before: T; after: T }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const before = await read();
    const after = await decide(before);
    if (after === before) return { before, after };
    const result = await write({ ...after, version: before.version + 1 }, before.version);
    if (result.kind === "replaced") return { before, after: { ...after, version: before.version + 1 } };
  }
  throw new DomainError("SVC_RESOURCE_CONFLICT", "The record kept changing under concurrent writes; read it again and retry.", { reason: "concurrent_write" });
}

/**
 * `compareAndSet` over a record found with its project: `find` reads both (and refuses what the
 * caller may not see), `decide` gets both, `write` is the store's compare-and-set.
 */
export async function mutateWithProject<T extends { version: number }, P>(find: () => Promise<{ record: T; project: P }>, decide: (current: T, project: P) => T | Promise<T>, write: (next: T, expectedVersion: number) => Promise<ReplaceResult>): Promise<{ before: T; after: T; project: P }> {
  let project: P | undefined;
  const r = await compareAndSet(
    async () => {
      const found = await find();
      project = found.project;
      return found.record;
    },
    (current) => decide(current, project as P),
    write,
  );
  return { ...r, project: project as P };
}
