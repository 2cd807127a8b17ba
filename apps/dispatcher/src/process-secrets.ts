import type { ServerSecrets } from "@agentq/core";
import { createHmac } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The server secrets of a standalone dispatcher: from SVC_SECRET_KEY, else the server's
 * generated `<dataDir>/secret.key`; never generated here (a dispatcher with another key would
 * sign with keys no receiver holds). Derived exactly as the server derives them (apps/server
 * secrets.ts; a server test checks they agree).
 * @throws Error when neither is there, or the key is too short.
 */
export function loadDispatcherSecrets(p: { secretKey: string | null; dataDir: string }): ServerSecrets {
  let master = p.secretKey;
  if (master === null) {
    const file = join(p.dataDir, "secret.key");
    if (!existsSync(file)) throw new Error(`Set SVC_SECRET_KEY (the server's secret) or run the server once so ${file} exists.`);
    master = readFileSync(file, "utf8").trim();
  }
  if (master.length < 32) throw new Error("SVC_SECRET_KEY must be at least 32 characters.");
  return deriveDispatcherSecrets(master);
}

/** Per-purpose keys from the master secret: HMAC-SHA-256(master, "agentq/<purpose>/v1"), the audit log's key seed included. */
export function deriveDispatcherSecrets(master: string): ServerSecrets {
  const derive = (purpose: string) => new Uint8Array(createHmac("sha256", master).update(`agentq/${purpose}/v1`).digest());
  return { pepper: derive("pepper"), cursorKey: derive("cursor"), logSeed: derive("audit-log-key") };
}
