import type { ServerSecrets } from "@agentq/core";
import { deriveSecrets } from "@agentq/runtime";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The server secrets of a standalone dispatcher: from SVC_SECRET_KEY, else the server's
 * generated `<dataDir>/secret.key`; never generated here (a dispatcher with another key would
 * sign with keys no receiver holds). Derived by the server's own `deriveSecrets` (@agentq/runtime).
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
  return deriveSecrets(master);
}

