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
  /** The address clients use to reach this server (MCP metadata, mcp_config); default from host and port. */
  publicBaseUrl: string;
  logLevel: string;
}

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Reads the server configuration from `env`; refuses a malformed PORT. */
export function readEnv(env: NodeJS.ProcessEnv = process.env): ServerEnv {
  const host = env.HOST?.trim() || "127.0.0.1";
  const portText = env.PORT?.trim() || "8080";
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(portText)}.`);
  const displayHost = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return {
    host,
    port,
    databaseUrl: env.DATABASE_URL?.trim() || null,
    secretKey: env.SVC_SECRET_KEY?.trim() || null,
    dataDir: env.AGENTQ_DATA_DIR?.trim() || `${REPO_ROOT}.data`,
    publicBaseUrl: (env.PUBLIC_BASE_URL?.trim() || `http://${displayHost}:${port}`).replace(/\/+$/, ""),
    logLevel: env.LOG_LEVEL?.trim() || "info",
  };
}
