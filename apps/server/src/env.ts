import { fileURLToPath } from "node:url";

/** The server's configuration. This is the only file of the server that reads process.env. */
export interface ServerEnv {
  host: string;
  port: number;
  /** PostgreSQL URL; null selects the embedded PostgreSQL. */
  databaseUrl: string | null;
  /** SVC_SECRET_KEY; null means use (or create) `<dataDir>/secret.key`. */
  secretKey: string | null;
  /** Where embedded PostgreSQL data and the generated secret live (default `<repo>/.data`). */
  dataDir: string;
  /**
   * AGENTQ_PG_PORT: the port the embedded PostgreSQL prefers when it first starts (null: the
   * launcher's default, 54329); when taken, a free one is picked and remembered. Unused with
   * DATABASE_URL.
   */
  embeddedPostgresPort: number | null;
  /**
   * AGENTQ_PG_POOL_MAX: the server's PostgreSQL connections (default 4). Few connections with
   * queries pipelined on each beat many: S1 at 32 requests in flight ran 1,061-1,064 sends/s with
   * 4, about 990 with 8 or 2, and 797-804 with 20 (docs/performance.md).
   */
  poolMax: number;
  /** The address clients use to reach this server (MCP metadata, mcp_config); default from host and port. */
  publicBaseUrl: string;
  logLevel: string;
  /** The source commit shown by GET /v1/version (AGENTQ_COMMIT), if known. */
  commit: string | null;
  /**
   * SVC_RATE_LIMITER: `memory` (default: counters in this process, right for one server),
   * `postgres` (counters shared by every process on the database: set it when running several
   * replicas) or `off` (no rate limits and no X-RateLimit-* headers, e.g. for benchmarks).
   */
  rateLimiter: "memory" | "postgres" | "off";
  /** SVC_SANCTIONS_LIST: a JSON or CSV sanctions list read at start-up; null screens nobody out. */
  sanctionsListPath: string | null;
}

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Reads the server configuration from `env`; refuses a malformed PORT, AGENTQ_PG_PORT or AGENTQ_PG_POOL_MAX. */
export function readEnv(env: NodeJS.ProcessEnv = process.env): ServerEnv {
  const host = env.HOST?.trim() || "127.0.0.1";
  const portText = env.PORT?.trim() || "8080";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(portText)}.`);
  const pgPortText = env.AGENTQ_PG_PORT?.trim() || null;
  const embeddedPostgresPort = pgPortText === null ? null : Number(pgPortText);
  if (embeddedPostgresPort !== null && (!Number.isInteger(embeddedPostgresPort) || embeddedPostgresPort < 1 || embeddedPostgresPort > 65535)) {
    throw new Error(`AGENTQ_PG_PORT must be an integer from 1 to 65535, got ${JSON.stringify(pgPortText)}.`);
  }
  const poolText = env.AGENTQ_PG_POOL_MAX?.trim() || "4";
  const poolMax = Number(poolText);
  if (!Number.isInteger(poolMax) || poolMax < 1 || poolMax > 1000) throw new Error(`AGENTQ_PG_POOL_MAX must be an integer from 1 to 1000, got ${JSON.stringify(poolText)}.`);
  const displayHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    host,
    port,
    databaseUrl: env.DATABASE_URL?.trim() || null,
    secretKey: env.SVC_SECRET_KEY?.trim() || null,
    dataDir: env.AGENTQ_DATA_DIR?.trim() || `${REPO_ROOT}.data`,
    embeddedPostgresPort,
    poolMax,
    publicBaseUrl: (env.PUBLIC_BASE_URL?.trim() || `http://${displayHost}:${port}`).replace(/\/+$/, ""),
    logLevel: env.LOG_LEVEL?.trim() || "info",
    commit: env.AGENTQ_COMMIT?.trim() || null,
    rateLimiter: readRateLimiter(env.SVC_RATE_LIMITER),
    sanctionsListPath: env.SVC_SANCTIONS_LIST?.trim() || null,
  };
}

function readRateLimiter(value: string | undefined): ServerEnv["rateLimiter"] {
  const v = value?.trim() || "memory";
  if (v === "memory" || v === "postgres" || v === "off") return v;
  throw new Error(`SVC_RATE_LIMITER must be memory, postgres or off, got ${JSON.stringify(v)}.`);
}

/** What the user-side commands (`pnpm audit:export`, `pnpm audit:verify`) read from the environment. */
export interface CommandEnv {
  /** SVC_CREDENTIAL: the bearer token, or null. */
  credential: string | null;
  /** SVC_BASE_URL without a trailing slash (default http://127.0.0.1:8080). */
  baseUrl: string;
  /** The directory the user ran `pnpm ...` in (INIT_CWD), against which relative paths resolve. */
  workingDir: string;
}

/** Reads the user-side commands' environment. */
export function readCommandEnv(env: NodeJS.ProcessEnv = process.env): CommandEnv {
  return {
    credential: env.SVC_CREDENTIAL?.trim() || null,
    baseUrl: (env.SVC_BASE_URL?.trim() || "http://127.0.0.1:8080").replace(/\/+$/, ""),
    workingDir: env.INIT_CWD?.trim() || process.cwd(),
  };
}
