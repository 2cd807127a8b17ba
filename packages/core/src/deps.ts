import type { Clock, IdSource, Stores, TxRunner, WakeupNotifier } from "./ports.ts";

/** Secret material of the server (DESIGN §2: from SVC_SECRET_KEY). */
export interface ServerSecrets {
  /** Key of the HMAC that hashes tokens and other secrets before they are stored. */
  pepper: Uint8Array;
  /** Key of the HMAC that signs paging cursors. */
  cursorKey: Uint8Array;
}

/** Everything a use case may reach: the ports, the clock, ids and secrets. */
export interface CoreDeps {
  stores: Stores;
  tx: TxRunner;
  clock: Clock;
  ids: IdSource;
  notifier: WakeupNotifier;
  secrets: ServerSecrets;
}
