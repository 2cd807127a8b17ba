export { run, resolveBaseUrl, resolveCredential, DEFAULT_BASE_URL } from "./run.ts";
export type { CliIo, TextSink } from "./cli-io.ts";
export { EXIT, exitCodeForServiceError } from "./exit-codes.ts";
export { VERIFY_EXIT } from "./receipt-commands.ts";
export type { ExitCode } from "./exit-codes.ts";
export { CliError } from "./cli-error.ts";
export { callOperation, httpRequestOf } from "./service-client.ts";
export type { OperationRequest, ServiceConfig } from "./service-client.ts";
