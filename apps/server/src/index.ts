export { composeService } from "./compose.ts";
export type { ComposedService, ComposeWebhookOptions } from "./compose.ts";
