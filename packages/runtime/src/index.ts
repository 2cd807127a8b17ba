// @agentq/runtime: the non-SQL adapters and the process wiring every agentq process shares
// (DESIGN §1): the environment, the database opening, the server secrets, the logger, the argon2
// hasher, the secret sealer, the mailers, the OIDC client, the sanctions file and the guarded
// webhook transport. No app is imported here: apps import this package.
export { readEnv, readCommandEnv, publicBaseUrlOf } from "./env.ts";
export { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SERVICE_URL, defaultPublicBaseUrl } from "./default-address.ts";
export type { ServerEnv, CommandEnv } from "./env.ts";
export { openDatabase } from "./database.ts";
export type { OpenDatabase } from "./database.ts";
export { loadSecrets, deriveSecrets } from "./secrets.ts";
export { createLogger } from "./logger.ts";
export type { Logger } from "./logger.ts";
export { argon2PasswordHasher } from "./password.ts";
export { aesGcmSecretSealer } from "./secret-sealer.ts";
export { loadSanctionsScreen } from "./sanctions-file.ts";
export { createMailer, mailDir } from "./mail/create-mailer.ts";
export type { ConfiguredMailer } from "./mail/create-mailer.ts";
export { createSmtpMailer, redactSmtpUrl } from "./mail/smtp-mailer.ts";
export type { SmtpMailer } from "./mail/smtp-mailer.ts";
export { createEmlFileMailer } from "./mail/eml-file-mailer.ts";
export { createOpenIdClientProvider } from "./oidc/openid-client-provider.ts";
export type { OidcSettings } from "./oidc/openid-client-provider.ts";
export { createHttpWebhookTransport } from "./webhooks/http-webhook-transport.ts";
export type { HttpWebhookTransportOptions, HostResolver } from "./webhooks/http-webhook-transport.ts";
export { classifyAddress } from "./webhooks/address-policy.ts";
export type { AddressClass } from "./webhooks/address-policy.ts";
// The process wiring: the core deps of a serving process, and the one way a server process runs.
export { createServiceDeps } from "./service-deps.ts";
export type { ServiceDeps, ServiceDepsOptions } from "./service-deps.ts";
export { ACCESS_LOG_MESSAGE, accessLogTo, isConnectionLoss, listenForPlanChanges, runService, runServiceProcess } from "./run-service.ts";
export type { RunServiceOptions, ServedService, ServiceProcess, Stoppable } from "./run-service.ts";
