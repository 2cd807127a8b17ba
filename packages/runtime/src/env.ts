import addressparser from "nodemailer/lib/addressparser";
import { DEFAULT_PEOPLE_SETTINGS, parseVerifierKeyList, tryParseDurationMs, type PeopleSettings } from "@agentq/core";
import { fileURLToPath } from "node:url";
import { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SERVICE_URL, defaultPublicBaseUrl } from "./default-address.ts";

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
  /**
   * PUBLIC_BASE_URL: the address clients use to reach this server (its origin is the service's
   * own origin: the origin check, the OAuth issuer, the MCP metadata, mcp_config); default
   * `http://HOST:PORT` (127.0.0.1 for a wildcard HOST). A server uses `publicBaseUrlOf`, which
   * puts the port actually bound into the default.
   */
  publicBaseUrl: string;
  /** True when PUBLIC_BASE_URL was set (else `publicBaseUrl` is the default from HOST and PORT). */
  publicBaseUrlSet: boolean;
  logLevel: string;
  /** The source commit shown by GET /v1/version (AGENTQ_COMMIT), if known. */
  commit: string | null;
  /**
   * SVC_RATE_LIMITER: `memory` (default: counters in this process, right for one server),
   * `postgres` (counters shared by every process on the database: set it when running several
   * replicas) or `off` (no per-credential or per-workspace limits and no X-RateLimit-* headers,
   * e.g. for benchmarks; the anonymous routes' per-address limits stay on, in PostgreSQL).
   */
  rateLimiter: "memory" | "postgres" | "off";
  /** True when SVC_RATE_LIMITER was set (several workers default to `postgres` otherwise). */
  rateLimiterSet: boolean;
  /** SVC_SANCTIONS_LIST: a JSON or CSV sanctions list read at start-up; null screens nobody out. */
  sanctionsListPath: string | null;
  /**
   * SVC_LOG_PREVIOUS_KEYS: verifier keys of the audit log's earlier checkpoint keys (after a new
   * SVC_SECRET_KEY or PUBLIC_BASE_URL), still listed for verification (docs/receipts.md).
   */
  previousLogKeys: string[];
  /**
   * SMTP_URL (`smtp://user:pass@host:587`, `smtps://...:465`): mail goes through that SMTP server;
   * null writes each mail as an .eml file under `<dataDir>/mail/` instead (docs/people.md, Mail).
   */
  smtpUrl: string | null;
  /**
   * SVC_OIDC_ISSUER, SVC_OIDC_CLIENT_ID, SVC_OIDC_CLIENT_SECRET, SVC_OIDC_LABEL: the identity
   * provider people may sign in with (docs/people.md, OIDC); null when SVC_OIDC_ISSUER is not set.
   */
  oidc: { issuer: string; clientId: string; clientSecret: string | null; label: string } | null;
  /**
   * METRICS_PORT (0..65535): Prometheus text at `/metrics` on a listener of its own, on
   * METRICS_HOST (default 127.0.0.1, loopback); METRICS_WORKSPACE_LABELS=on adds a
   * `workspace_id` label to the message counters and gauges; METRICS_QUEUE_STATS_SECONDS (1..300,
   * default 15) is how often the gauges are read from the database. Null (METRICS_PORT unset): no
   * listener, prom-client is never loaded (docs/operations.md).
   */
  metrics: { port: number; host: string; workspaceLabels: boolean; queueStatsIntervalMs: number } | null;
  /**
   * True when OTLP trace export is configured: OTEL_EXPORTER_OTLP_ENDPOINT or
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT set, and neither OTEL_SDK_DISABLED=true nor
   * OTEL_TRACES_EXPORTER=none. False: the OpenTelemetry SDK is never loaded and no span is
   * started (docs/operations.md). The exporter reads the other OTEL_* variables itself.
   */
  tracing: boolean;
  /** MAIL_FROM: the sender of every mail (`Name <address>` or an address); default `agentq <no-reply@HOST>` with PUBLIC_BASE_URL's host name. */
  mailFrom: string;
  /**
   * The agent designated to receive DSA and DMCA notices, shown by GET /v1/notices/intake:
   * SVC_NOTICE_AGENT_NAME and SVC_NOTICE_AGENT_EMAIL (both, or neither: null), with optional
   * SVC_NOTICE_AGENT_ADDRESS and SVC_NOTICE_AGENT_PHONE.
   */
  noticeAgent: { name: string; email: string; address?: string; phone?: string } | null;
  /**
   * People's sign-in (docs/people.md): SVC_SIGNUP (`open`, default, or `closed`),
   * SVC_BLOCKED_COUNTRIES (comma-separated ISO 3166 codes), SVC_SESSION_IDLE_TIMEOUT and
   * SVC_SESSION_ABSOLUTE_TIMEOUT (ISO 8601 durations, default PT30M and PT12H).
   */
  people: PeopleSettings;
  /** SVC_TRUSTED_PROXIES: comma-separated CIDRs whose X-Forwarded-For and country header are trusted. */
  trustedProxies: string[];
  /** SVC_COUNTRY_HEADER: the header naming the client's country (e.g. CF-IPCountry), or null. */
  countryHeader: string | null;
}

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The public base URL of a server bound to `boundPort`: PUBLIC_BASE_URL when set, else the
 * default with the port really bound (PORT=0 picks one only when listening).
 */
export function publicBaseUrlOf(env: Pick<ServerEnv, "host" | "publicBaseUrl" | "publicBaseUrlSet">, boundPort: number): string {
  return env.publicBaseUrlSet ? env.publicBaseUrl : defaultPublicBaseUrl(env.host, boundPort);
}

/** Reads the server configuration from `env`; refuses a malformed PORT, AGENTQ_PG_PORT or AGENTQ_PG_POOL_MAX. */
export function readEnv(env: NodeJS.ProcessEnv = process.env): ServerEnv {
  const host = env.HOST?.trim() || DEFAULT_HOST;
  const portText = env.PORT?.trim() || String(DEFAULT_PORT);
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
  const configuredBaseUrl = env.PUBLIC_BASE_URL?.trim() || null;
  const publicBaseUrl = configuredBaseUrl === null ? defaultPublicBaseUrl(host, port) : configuredBaseUrl.replace(/\/+$/, "");
  return {
    host,
    port,
    databaseUrl: env.DATABASE_URL?.trim() || null,
    secretKey: env.SVC_SECRET_KEY?.trim() || null,
    dataDir: env.AGENTQ_DATA_DIR?.trim() || `${REPO_ROOT}.data`,
    embeddedPostgresPort,
    poolMax,
    publicBaseUrl,
    publicBaseUrlSet: configuredBaseUrl !== null,
    logLevel: env.LOG_LEVEL?.trim() || "info",
    commit: env.AGENTQ_COMMIT?.trim() || null,
    rateLimiter: readRateLimiter(env.SVC_RATE_LIMITER),
    rateLimiterSet: (env.SVC_RATE_LIMITER?.trim() ?? "") !== "",
    sanctionsListPath: env.SVC_SANCTIONS_LIST?.trim() || null,
    previousLogKeys: readPreviousLogKeys(env.SVC_LOG_PREVIOUS_KEYS),
    smtpUrl: readSmtpUrl(env.SMTP_URL),
    mailFrom: readMailFrom(env.MAIL_FROM, publicBaseUrl),
    noticeAgent: readNoticeAgent(env),
    people: readPeopleSettings(env),
    trustedProxies: list(env.SVC_TRUSTED_PROXIES),
    countryHeader: env.SVC_COUNTRY_HEADER?.trim() || null,
    oidc: readOidc(env),
    metrics: readMetrics(env),
    tracing: readTracing(env),
  };
}

/** Whether OTLP trace export is configured (see `ServerEnv.tracing`). */
function readTracing(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || "";
  if (endpoint === "") return false;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() ?? "otlp") !== "none";
}

/** METRICS_PORT, METRICS_HOST, METRICS_WORKSPACE_LABELS, METRICS_QUEUE_STATS_SECONDS (see `ServerEnv.metrics`). */
function readMetrics(env: NodeJS.ProcessEnv): ServerEnv["metrics"] {
  const portText = env.METRICS_PORT?.trim() || null;
  if (portText === null) return null;
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`METRICS_PORT must be an integer from 0 to 65535, got ${JSON.stringify(portText)}.`);
  const labels = env.METRICS_WORKSPACE_LABELS?.trim() || "off";
  if (labels !== "on" && labels !== "off") throw new Error(`METRICS_WORKSPACE_LABELS must be on or off, got ${JSON.stringify(labels)}.`);
  const secondsText = env.METRICS_QUEUE_STATS_SECONDS?.trim() || "15";
  const seconds = Number(secondsText);
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 300) throw new Error(`METRICS_QUEUE_STATS_SECONDS must be an integer from 1 to 300, got ${JSON.stringify(secondsText)}.`);
  return { port, host: env.METRICS_HOST?.trim() || "127.0.0.1", workspaceLabels: labels === "on", queueStatsIntervalMs: seconds * 1000 };
}

/** The SVC_OIDC_* settings: all or none (an issuer without a client id, or the reverse, is refused at start-up). */
function readOidc(env: NodeJS.ProcessEnv): ServerEnv["oidc"] {
  const issuer = env.SVC_OIDC_ISSUER?.trim() || null;
  const clientId = env.SVC_OIDC_CLIENT_ID?.trim() || null;
  if (issuer === null && clientId === null) return null;
  if (issuer === null || clientId === null) throw new Error("SVC_OIDC_ISSUER and SVC_OIDC_CLIENT_ID must be set together (and SVC_OIDC_CLIENT_SECRET for a confidential client).");
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`SVC_OIDC_ISSUER must be the identity provider's issuer URL, got ${JSON.stringify(issuer)}.`);
  }
  return { issuer, clientId, clientSecret: env.SVC_OIDC_CLIENT_SECRET?.trim() || null, label: env.SVC_OIDC_LABEL?.trim() || url.host };
}

function list(value: string | undefined): string[] {
  return (value ?? "").split(",").map((s) => s.trim()).filter((s) => s.length > 0);
}

function readPeopleSettings(env: NodeJS.ProcessEnv): PeopleSettings {
  const signup = env.SVC_SIGNUP?.trim() || "open";
  if (signup !== "open" && signup !== "closed") throw new Error(`SVC_SIGNUP must be open or closed, got ${JSON.stringify(signup)}.`);
  const blockedCountries = list(env.SVC_BLOCKED_COUNTRIES).map((c) => c.toUpperCase());
  for (const c of blockedCountries) if (!/^[A-Z]{2}$/.test(c)) throw new Error(`SVC_BLOCKED_COUNTRIES must be ISO 3166 alpha-2 codes, got ${JSON.stringify(c)}.`);
  const duration = (name: string, fallback: number): number => {
    const text = env[name]?.trim();
    if (!text) return fallback;
    const ms = tryParseDurationMs(text);
    if (ms === null || ms < 60_000) throw new Error(`${name} must be an ISO 8601 duration of at least PT1M, got ${JSON.stringify(text)}.`);
    return ms;
  };
  return {
    signup,
    blockedCountries,
    sessionIdleMs: duration("SVC_SESSION_IDLE_TIMEOUT", DEFAULT_PEOPLE_SETTINGS.sessionIdleMs),
    sessionAbsoluteMs: duration("SVC_SESSION_ABSOLUTE_TIMEOUT", DEFAULT_PEOPLE_SETTINGS.sessionAbsoluteMs),
  };
}

function readSmtpUrl(value: string | undefined): string | null {
  const v = value?.trim() || null;
  if (v === null) return null;
  let protocol: string;
  try {
    protocol = new URL(v).protocol;
  } catch {
    throw new Error("SMTP_URL must be a URL such as smtp://user:pass@mail.example.com:587 or smtps://mail.example.com:465.");
  }
  if (protocol !== "smtp:" && protocol !== "smtps:") throw new Error(`SMTP_URL must start with smtp:// or smtps://, got ${JSON.stringify(protocol)}.`);
  return v;
}

/** MAIL_FROM, checked to hold exactly one address; the default names PUBLIC_BASE_URL's host (localhost for an IP address). */
function readMailFrom(value: string | undefined, publicBaseUrl: string): string {
  const v = value?.trim() || null;
  if (v === null) {
    let host = "localhost";
    try {
      const name = new URL(publicBaseUrl).hostname;
      if (/^(?=.*[a-z])[a-z0-9.-]+\.[a-z]{2,}$/i.test(name)) host = name;
    } catch {
      // an unparsable PUBLIC_BASE_URL keeps localhost
    }
    return `agentq <no-reply@${host}>`;
  }
  const parsed = addressparser(v, { flatten: true });
  if (parsed.length !== 1 || !parsed[0]?.address.includes("@")) throw new Error(`MAIL_FROM must be one address such as "agentq <no-reply@example.com>", got ${JSON.stringify(v)}.`);
  return v;
}

function readNoticeAgent(env: NodeJS.ProcessEnv): ServerEnv["noticeAgent"] {
  const name = env.SVC_NOTICE_AGENT_NAME?.trim() || null;
  const email = env.SVC_NOTICE_AGENT_EMAIL?.trim() || null;
  if (name === null && email === null) return null;
  if (name === null || email === null) throw new Error("SVC_NOTICE_AGENT_NAME and SVC_NOTICE_AGENT_EMAIL go together: set both, or neither.");
  const address = env.SVC_NOTICE_AGENT_ADDRESS?.trim() || null;
  const phone = env.SVC_NOTICE_AGENT_PHONE?.trim() || null;
  return { name, email, ...(address === null ? {} : { address }), ...(phone === null ? {} : { phone }) };
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
  /** SVC_BASE_URL without a trailing slash (default `DEFAULT_SERVICE_URL`, http://127.0.0.1:8080). */
  baseUrl: string;
  /** The directory the user ran `pnpm ...` in (INIT_CWD), against which relative paths resolve. */
  workingDir: string;
}

/** Reads the user-side commands' environment. */
export function readCommandEnv(env: NodeJS.ProcessEnv = process.env): CommandEnv {
  return {
    credential: env.SVC_CREDENTIAL?.trim() || null,
    baseUrl: (env.SVC_BASE_URL?.trim() || DEFAULT_SERVICE_URL).replace(/\/+$/, ""),
    workingDir: env.INIT_CWD?.trim() || process.cwd(),
  };
}

/** SVC_LOG_PREVIOUS_KEYS, each entry checked to be a verifier key string. */
function readPreviousLogKeys(value: string | undefined): string[] {
  try {
    return parseVerifierKeyList(value);
  } catch (e) {
    throw new Error(`SVC_LOG_PREVIOUS_KEYS: ${e instanceof Error ? e.message : String(e)}`);
  }
}
