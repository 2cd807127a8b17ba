// Hono middleware shared by the HTTP adapters (apps/rest and apps/mcp): what both must do the
// same way, and neither may import from the other.
export { accessLog, type ServedRequest } from "./access-log.ts";
export { closeAfterUnreadBody, type UnreadBodyDrainLimits } from "./close-after-unread-body.ts";
export { bearerChallenge } from "./bearer-challenge.ts";
