import type { NativeCrypto } from "./encoding/native-crypto.ts";
import type { PeopleConfig } from "./people/people-settings.ts";
import type { Clock, Enricher, IdSource, Mailer, MessageMeter, OidcProvider, RateLimiter, SanctionsScreen, Stores, TxRunner, WakeupNotifier, WebhookTransport } from "./ports.ts";

/** Secret material of the server (DESIGN §2: from SVC_SECRET_KEY). */
export interface ServerSecrets {
  /** Key of the HMAC that hashes tokens and other secrets before they are stored. */
  pepper: Uint8Array;
  /** Key of the HMAC that signs paging cursors. */
  cursorKey: Uint8Array;
  /**
   * The 32-byte Ed25519 seed of the audit log's checkpoint key (DESIGN §2c Receipts), named
   * `<PUBLIC_BASE_URL host>/agentq`.
   */
  logSeed: Uint8Array;
  /**
   * Optional: native implementations of two of the core's algorithms (the runtime's are
   * node:crypto's). They give the same bytes as the core's @noble code, which runs without them,
   * at a fraction of the cost: noble derives the public key again at every Ed25519 signature (the
   * sealer signs a checkpoint per workspace per second), and the authenticator hashes every
   * request's bearer token. Algorithms only, no key of their own: a copy of these secrets with
   * another key (`{ ...secrets, logSeed }`) stays right.
   */
  native?: NativeCrypto;
}

/** Everything a use case may reach: the ports, the clock, ids and secrets. */
export interface CoreDeps {
  stores: Stores;
  tx: TxRunner;
  clock: Clock;
  ids: IdSource;
  notifier: WakeupNotifier;
  secrets: ServerSecrets;
  /**
   * This process's credential cache (the Authenticator), told at once when a credential is
   * revoked or rotated through this process. Optional: without it, such changes reach the
   * cache within its TTL (30 s).
   */
  credentialCache?: { forget(credentialId: string): void };
  /**
   * The service's public base URL without a trailing slash (e.g. `https://queue.example.com`):
   * the links mailed to people, the OIDC redirect URI, the notices' own URLs, paste-ready MCP
   * client configurations. The composition root sets it (runtime's env: PUBLIC_BASE_URL, else
   * `http://HOST:PORT`); the core never invents one: read it with `requirePublicBaseUrl`.
   * Optional only for processes that build no URL (the standalone dispatcher).
   */
  publicBaseUrl?: string;
  /**
   * Verifier keys (`<name>+<key hash>+<base64 key>`) of the audit log's earlier checkpoint keys,
   * still listed for verification after a rotation (SVC_LOG_PREVIOUS_KEYS). Optional: none.
   */
  previousLogKeys?: readonly string[];
  /**
   * Per-minute request counters (DESIGN §5: the PostgreSQL adapter when several processes
   * serve one database). Optional: without it no rate limit applies and no X-RateLimit-*
   * headers are sent.
   */
  rateLimiter?: RateLimiter;
  /** Sanctions screening of send participants. Optional: without it everyone is clear. */
  sanctions?: SanctionsScreen;
  /**
   * Outbound HTTP for webhook destination probes (SSRF-guarded). Optional: without it, creating
   * a webhook or changing its URL gives 503 SVC_SERVICE_UNAVAILABLE.
   */
  webhookTransport?: WebhookTransport;
  /**
   * Outgoing mail (password reset, invitations, notices). Optional: without it, an operation
   * that must send a mail gives 503 SVC_SERVICE_UNAVAILABLE (`sendMail`).
   */
  mailer?: Mailer;
  /** Computes rules' enrichment (SESSION-STATE §8). Optional: the heuristic enricher ("heuristic-v1") by default. */
  enricher?: Enricher;
  /**
   * The operator's notice settings (DESIGN §2b): the designated agent shown by GET
   * /v1/notices/intake. Optional: without it the intake shows `designated_agent: null`.
   */
  noticeSettings?: NoticeSettings;
  /**
   * The OpenID Connect identity provider people may sign in with (SVC_OIDC_*). Optional: without
   * it, /v1/auth/oidc/start and /callback answer 404 SVC_RESOURCE_NOT_FOUND.
   */
  oidc?: OidcProvider;
  /**
   * People's sign-in: the password hasher, the secret sealer and the operator's settings
   * (sign-up open, blocked countries, session lifetimes). Optional: without it the /v1/auth
   * routes answer 503 SVC_SERVICE_UNAVAILABLE; sessions already issued still authenticate.
   */
  people?: PeopleConfig;
  /**
   * Counts messaging events once their write committed (the metrics adapter, METRICS_PORT).
   * Optional: without it nothing is counted.
   */
  meter?: MessageMeter;
}

/** The operator's settings for DSA and DMCA notices. */
export interface NoticeSettings {
  /** The agent designated to receive notices (17 U.S.C. 512(c)(2); DSA Art. 11-12 point of contact). */
  designatedAgent: { name: string; email: string; address?: string; phone?: string } | null;
}

/**
 * The service's public base URL from the deps.
 * @throws Error when the composition root did not set `publicBaseUrl`: a programming error of
 *   the composition (the core builds no URL of its own), never a client's.
 */
export function requirePublicBaseUrl(deps: { publicBaseUrl?: string }): string {
  if (deps.publicBaseUrl === undefined) throw new Error("deps.publicBaseUrl is not set: the composition root must pass the service's public base URL (PUBLIC_BASE_URL).");
  return deps.publicBaseUrl;
}
