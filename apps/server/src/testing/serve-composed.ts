import type { Clock, Mailer, OidcProvider } from "@agentq/core";
import type { OriginSettings } from "@agentq/http";
import { TEST_SECRETS } from "@agentq/core/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { listenHttp } from "@agentq/http";
import { composeService, type ComposedService } from "../compose.ts";
import { createHttpWebhookTransport, createLogger, createSmtpMailer } from "@agentq/runtime";
import { startSmtpReceiver, type SmtpReceiver } from "@agentq/runtime/testing";
import { TRUSTED_LOOPBACK } from "./people.ts";

/** The composed service (REST, MCP, the dashboard) on a real socket of 127.0.0.1, over its own test schema. */
export interface ServedService {
  service: ComposedService;
  db: TestSchema;
  /** `http://127.0.0.1:<port>`, which is also the service's PUBLIC_BASE_URL (its own origin). */
  baseUrl: string;
  /** The real SMTP receiver on 127.0.0.1 the service mails to (sign-up links, invitations, resets). */
  smtp: SmtpReceiver & { failNext: number };
  /** The error-level lines the service logged (server faults), so a test can say why it got a 503. */
  faults(): string[];
  /** Stops the server, the service and drops the schema. */
  close(): Promise<void>;
}

/**
 * Serves `composeService` as `pnpm start` does (`listenHttp`: the same timeouts), on a free port whose address is the public base
 * URL (so same-origin checks see the browser's Origin as the service's own), with the background
 * work off unless asked for, the given clock (else the system clock), webhooks to loopback
 * receivers allowed when asked for, mail through SMTP to a real receiver on 127.0.0.1 (`smtp`)
 * unless `mailer` replaces it (a test that holds mails back), an OIDC identity provider when `oidc` makes one for the service's address, and the given
 * origin settings; by default X-Forwarded-For is trusted from loopback peers (`TRUSTED_LOOPBACK`),
 * so that tests may speak from client addresses of their own (`signUpPerson` does, to stay
 * under the per-address limits of the anonymous routes).
 */
export async function serveComposed(options: { background?: boolean; rateLimiter?: "memory" | "off"; loopbackWebhooks?: boolean; clock?: Clock; mailer?: Mailer; oidc?: (baseUrl: string) => Promise<OidcProvider>; origin?: OriginSettings } = {}): Promise<ServedService> {
  const db = await createTestSchema({ max: 5 });
  const faults: string[] = [];
  const smtp = await startSmtpReceiver();
  // The service needs the port in its public base URL, so it is composed once the socket listens.
  const holder: { service?: ComposedService } = {};
  const listener = await listenHttp((request, env) => (holder.service as ComposedService).fetch(request, env), { hostname: "127.0.0.1", port: 0 });
  const baseUrl = `http://127.0.0.1:${listener.address.port}`;
  const oidc = options.oidc === undefined ? undefined : await options.oidc(baseUrl);
  const service = composeService({
    sql: db.sql,
    secrets: TEST_SECRETS,
    publicBaseUrl: baseUrl,
    logger: createLogger("error", { write: (line: string) => void faults.push(line) }),
    rateLimiter: options.rateLimiter ?? "off",
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    mailer: options.mailer ?? createSmtpMailer({ url: smtp.url, from: "agentq <no-reply@agentq.test>" }),
    ...(oidc === undefined ? {} : { oidc }),
    people: { origin: options.origin ?? TRUSTED_LOOPBACK },
    // Tests send webhook traffic only to 127.0.0.1: loopback is let through by the transport's test-only option.
    ...(options.loopbackWebhooks === true ? { webhooks: { transport: createHttpWebhookTransport({ allowLoopbackForTests: true }), dispatch: { pollIntervalMs: 50 } } } : {}),
  });
  holder.service = service;
  const background = options.background === true ? service.startBackground() : { stop: async () => undefined };
  const composed = service;
  return {
    service: composed,
    db,
    baseUrl,
    smtp,
    faults: () => [...faults],
    close: async () => {
      const closed = listener.close();
      listener.server.closeAllConnections();
      await closed;
      await background.stop();
      await composed.close();
      await db.drop();
      await smtp.close();
    },
  };
}
