import { parseVerifierKeyList } from "@agentq/core";
import { DEFAULT_SERVICE_URL } from "@agentq/runtime";
import { fileURLToPath } from "node:url";

/** The standalone dispatcher's configuration. This is the only file of the dispatcher that reads process.env. */
export interface DispatcherEnv {
  /** PostgreSQL URL (required: the dispatcher joins the database a server already migrated). */
  databaseUrl: string | null;
  /** SVC_SECRET_KEY; null means the server's generated `<dataDir>/secret.key`. */
  secretKey: string | null;
  dataDir: string;
  /**
   * PUBLIC_BASE_URL, the server's (default `DEFAULT_SERVICE_URL`, http://127.0.0.1:8080): its host names the audit log's
   * checkpoint key and origins, so it must be the server's own.
   */
  publicBaseUrl: string;
  /** SVC_LOG_PREVIOUS_KEYS, the server's: earlier checkpoint keys still listed. */
  previousLogKeys: string[];
  logLevel: string;
  /** First retry step in ms (AGENTQ_WEBHOOK_RETRY_BASE_MS; default 30 s, then x4 per attempt). */
  retryBaseMs: number | null;
  /** Fallback poll interval in ms (AGENTQ_WEBHOOK_POLL_MS; default 5 s): new deliveries wake the dispatcher by LISTEN/NOTIFY. */
  pollIntervalMs: number | null;
  /** Claim lease in ms (AGENTQ_WEBHOOK_LEASE_MS; default 60 s). */
  leaseMs: number | null;
  /** Per-attempt timeout in ms (AGENTQ_WEBHOOK_TIMEOUT_MS; default 5 s). */
  timeoutMs: number | null;
}

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

function positiveInt(env: NodeJS.ProcessEnv, name: string): number | null {
  const text = env[name]?.trim();
  if (!text) return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (milliseconds), got ${JSON.stringify(text)}.`);
  return n;
}

/** Reads the dispatcher configuration from `env`. */
export function readDispatcherEnv(env: NodeJS.ProcessEnv = process.env): DispatcherEnv {
  return {
    databaseUrl: env.DATABASE_URL?.trim() || null,
    secretKey: env.SVC_SECRET_KEY?.trim() || null,
    dataDir: env.AGENTQ_DATA_DIR?.trim() || `${REPO_ROOT}.data`,
    publicBaseUrl: (env.PUBLIC_BASE_URL?.trim() || DEFAULT_SERVICE_URL).replace(/\/+$/, ""),
    previousLogKeys: parseVerifierKeyList(env.SVC_LOG_PREVIOUS_KEYS),
    logLevel: env.LOG_LEVEL?.trim() || "info",
    retryBaseMs: positiveInt(env, "AGENTQ_WEBHOOK_RETRY_BASE_MS"),
    pollIntervalMs: positiveInt(env, "AGENTQ_WEBHOOK_POLL_MS"),
    leaseMs: positiveInt(env, "AGENTQ_WEBHOOK_LEASE_MS"),
    timeoutMs: positiveInt(env, "AGENTQ_WEBHOOK_TIMEOUT_MS"),
  };
}
