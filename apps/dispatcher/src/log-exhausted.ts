import type { DispatchPass } from "@agentq/core";

/**
 * The log half of the exhaustion alert (the audit row `webhook.delivery_exhausted` is the other
 * half, written with the dead mark): one warn line per delivery that just went dead.
 */
export function logExhausted(logger: { warn(obj: object, msg: string): void }, pass: DispatchPass): void {
  for (const d of pass.exhausted) {
    logger.warn({ alert: "webhook.delivery_exhausted", workspace_id: d.workspaceId, webhook_id: d.webhookId, delivery_id: d.id, message_id: d.messageId, attempts: d.attempts, last_error: d.lastError }, "webhook delivery exhausted: marked dead");
  }
}
