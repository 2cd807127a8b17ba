import { createAuthenticator, DEFAULT_PEOPLE_SETTINGS, InProcessRateLimiter, type Authenticator, type Clock, type Mailer, type MessageMeter, type NoticeSettings, type OidcProvider, type PasswordHasher, type PeopleSettings, type RateLimiter, type SanctionsScreen, type ServerSecrets, type WebhookTransport } from "@agentq/core";
import { createPgDeps, PgRateLimiter, type PgDeps } from "@agentq/postgres";
import type postgres from "postgres";
import { argon2PasswordHasher } from "./password.ts";
import { aesGcmSecretSealer } from "./secret-sealer.ts";
import { createHttpWebhookTransport } from "./webhooks/http-webhook-transport.ts";

/** What the core's deps of a serving process are made of; every field but the first three has a production default. */
export interface ServiceDepsOptions {
  sql: postgres.Sql;
  secrets: ServerSecrets;
  /** The service's own base URL (PUBLIC_BASE_URL, or the default with the port bound): links in mails, the notices' own URLs. */
  publicBaseUrl: string;
  /** The core clock (tests); default the system clock. */
  clock?: Clock;
  /** Where rate-limit counters live (docs/guard-rails.md): default `memory` (this process). */
  rateLimiter?: "memory" | "postgres" | "off";
  /** The mail port; without it, operations that mail give 503 SVC_SERVICE_UNAVAILABLE. */
  mailer?: Mailer;
  /** The designated agent shown by GET /v1/notices/intake (SVC_NOTICE_AGENT_*); default none. */
  noticeAgent?: NoticeSettings["designatedAgent"];
  /** The identity provider people may sign in with (SVC_OIDC_*); none by default. */
  oidc?: OidcProvider;
  /** Verifier keys of the audit log's earlier checkpoint keys, still listed (SVC_LOG_PREVIOUS_KEYS); default none. */
  previousLogKeys?: readonly string[];
  /** Sanctions screening of send participants (default: none). */
  sanctions?: SanctionsScreen;
  /** People's sign-in settings (default: sign-up open, 30 min idle, 12 h absolute) and password hasher (default argon2id). */
  people?: { settings?: PeopleSettings; passwords?: PasswordHasher };
  /** The transport of webhook probes and deliveries; default the SSRF-guarded HTTP transport (public destinations only). */
  webhookTransport?: WebhookTransport;
  /** Counts committed messaging events (the metrics, METRICS_PORT); default none. */
  meter?: MessageMeter;
}

/** The core's deps of a serving process and the pieces the apps share beside them. */
export interface ServiceDeps {
  deps: PgDeps;
  /** The one credential cache of the process: pass it to every app that authenticates (a revoke through one evicts it in all). */
  authenticator: Authenticator;
  /** The process's rate limiter, or undefined when rate limits are off (its counters are purged by the background work). */
  rateLimiter: RateLimiter | undefined;
  webhookTransport: WebhookTransport;
}

/**
 * Builds the core deps every serving process runs on (`pnpm start`, the REST or MCP process
 * alone, the tests that compose the real service): PostgreSQL stores, one authenticator whose
 * cache is the deps' credential cache, people's hasher, settings and secret sealer, the rate
 * limiter, the mailer, the OIDC provider, the sanctions screen and the webhook transport.
 */
export function createServiceDeps(p: ServiceDepsOptions): ServiceDeps {
  const base = createPgDeps({ sql: p.sql, secrets: p.secrets, ...(p.clock === undefined ? {} : { clock: p.clock }) });
  const authenticator = createAuthenticator(base);
  const webhookTransport = p.webhookTransport ?? createHttpWebhookTransport();
  base.webhookTransport = webhookTransport;
  const mode = p.rateLimiter ?? "memory";
  const rateLimiter: RateLimiter | undefined = mode === "off" ? undefined : mode === "postgres" ? new PgRateLimiter(p.sql) : new InProcessRateLimiter();
  const deps: PgDeps = Object.assign(base, {
    credentialCache: authenticator,
    people: { passwords: p.people?.passwords ?? argon2PasswordHasher(), settings: p.people?.settings ?? DEFAULT_PEOPLE_SETTINGS, sealer: aesGcmSecretSealer(p.secrets.pepper) },
    publicBaseUrl: p.publicBaseUrl,
    ...(p.previousLogKeys === undefined ? {} : { previousLogKeys: p.previousLogKeys }),
    noticeSettings: { designatedAgent: p.noticeAgent ?? null },
    ...(rateLimiter === undefined ? {} : { rateLimiter }),
    ...(p.sanctions === undefined ? {} : { sanctions: p.sanctions }),
    ...(p.mailer === undefined ? {} : { mailer: p.mailer }),
    ...(p.oidc === undefined ? {} : { oidc: p.oidc }),
    ...(p.meter === undefined ? {} : { meter: p.meter }),
  });
  return { deps, authenticator, rateLimiter, webhookTransport };
}
