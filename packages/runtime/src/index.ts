// @agentq/runtime: the non-SQL adapters and the process wiring every agentq process shares
// (DESIGN §1): the environment, the database opening, the server secrets, the logger, the argon2
// hasher, the secret sealer, the mailers, the OIDC client, the sanctions file and the guarded
// webhook transport. No app is imported here: apps import this package.
export { readEnv, readCommandEnv, publicBaseUrlOf, type ServerEnv, type CommandEnv } from "./env.ts";
export { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_SERVICE_URL, defaultPublicBaseUrl } from "./default-address.ts";
export { openDatabase, type OpenDatabase } from "./database.ts";
export { loadSecrets, deriveSecrets } from "./secrets.ts";
export { createAccessLogger, createLogger, LOG_REDACT_PATHS, type Logger } from "./logger.ts";
export { argon2PasswordHasher } from "./password.ts";
export { aesGcmSecretSealer } from "./secret-sealer.ts";
export { loadSanctionsScreen } from "./sanctions-file.ts";
export { createMailer, mailDir, type ConfiguredMailer } from "./mail/create-mailer.ts";
export { createSmtpMailer, redactSmtpUrl, type SmtpMailer } from "./mail/smtp-mailer.ts";
export { createEmlFileMailer } from "./mail/eml-file-mailer.ts";
export { createOpenIdClientProvider, type OidcSettings } from "./oidc/openid-client-provider.ts";
export { createHttpWebhookTransport, type HttpWebhookTransportOptions, type HostResolver } from "./webhooks/http-webhook-transport.ts";
export { classifyAddress, type AddressClass } from "./webhooks/address-policy.ts";
// The process wiring: the core deps of a serving process, and the one way a server process runs.
export { createServiceDeps, type ServiceDeps, type ServiceDepsOptions } from "./service-deps.ts";
export { ACCESS_LOG_MESSAGE, accessLogTo, isConnectionLoss, listenForPlanChanges, runService, runServiceProcess, type RunServiceOptions, type ServedService, type ServiceProcess, type Stoppable } from "./run-service.ts";
