import type { WebhookOutbox, WebhookStore } from "@agentq/core";

// The core's webhook records, named from the ports that carry them (the core's index exports the
// ports but not yet these records).

/** A webhook as stored (core `WebhookRecord`). */
export type WebhookRecord = Parameters<WebhookStore["insert"]>[0]["webhook"];
/** A webhook's filter (core `WebhookFilter`). */
export type WebhookFilter = WebhookRecord["filter"];
/** One signing key of a webhook (core `SigningKey`). */
export type SigningKey = WebhookRecord["signingKeys"][number];
/** One outbox row (core `DeliveryRecord`). */
export type DeliveryRecord = Awaited<ReturnType<WebhookStore["listDeliveries"]>>[number];
/** A delivery state (core `DeliveryState`). */
export type DeliveryState = DeliveryRecord["state"];
/** The management view of a webhook's outbox (core `WebhookStats`). */
export type WebhookStats = Awaited<ReturnType<WebhookStore["stats"]>>;
/** A delivery claimed by a dispatcher (core `ClaimedDelivery`). */
export type ClaimedDelivery = Awaited<ReturnType<WebhookOutbox["claimDue"]>>[number];
