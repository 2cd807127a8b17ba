import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import type { WebhookTransport } from "../ports.ts";
import { signDelivery } from "./signing.ts";
import { VERIFICATION_EVENT, type SigningKey } from "./webhook.ts";

/** How long the destination has to answer the verification probe. */
export const VERIFICATION_TIMEOUT_MS = 5_000;
/** Longest destination URL accepted. */
export const WEBHOOK_URL_MAX = 2048;

/**
 * Checks the shape of a destination URL: absolute http or https, a host, no user info, no
 * fragment, at most WEBHOOK_URL_MAX characters. Whether the host is public is decided when the
 * probe connects (the SSRF guard lives in the transport, at connect time).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field "url").
 */
export function checkWebhookUrl(raw: string): string {
  const text = raw.trim();
  if (text.length === 0 || text.length > WEBHOOK_URL_MAX) throw malformed(`url must be 1 to ${WEBHOOK_URL_MAX} characters.`, { field: "url" });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw malformed("url must be an absolute http or https URL.", { field: "url" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw malformed("url must be an http or https URL.", { field: "url" });
  if (url.hostname === "") throw malformed("url must name a host.", { field: "url" });
  if (url.username !== "" || url.password !== "") throw malformed("url must not carry user information.", { field: "url" });
  if (url.hash !== "") throw malformed("url must not carry a fragment.", { field: "url" });
  return url.toString();
}

/**
 * The synchronous verification of a destination (spec §Events 1): a POST of a
 * `webhook.verification` event signed with the webhook's key, which must be answered with 2xx
 * within VERIFICATION_TIMEOUT_MS, through the SSRF-guarded transport (so the destination must
 * resolve to public addresses only). Redirects are not followed: a 3xx fails.
 * @throws DomainError SVC_MALFORMED_REQUEST with details.verification_failure_reason (one of
 *   `destination_not_public`, `dns_failure`, `connection_failed`, `timeout`, `invalid_url`,
 *   `unexpected_status` with details.status); SVC_SERVICE_UNAVAILABLE when no transport is configured.
 */
export async function verifyDestination(deps: Pick<CoreDeps, "clock" | "ids" | "secrets" | "webhookTransport">, p: { webhookId: string; workspaceId: string; url: string; keys: readonly SigningKey[] }): Promise<void> {
  const transport: WebhookTransport | undefined = deps.webhookTransport;
  if (transport === undefined) throw new DomainError("SVC_SERVICE_UNAVAILABLE", "Webhook destinations cannot be verified on this server.");
  const now = deps.clock.now();
  const body = JSON.stringify({ type: VERIFICATION_EVENT, timestamp: now.toISOString(), data: { webhook_id: p.webhookId, workspace_id: p.workspaceId } });
  const headers = signDelivery({ pepper: deps.secrets.pepper, keys: p.keys, id: `verify_${deps.ids.next()}`, timestampSeconds: Math.floor(now.getTime() / 1000), body });
  const result = await transport.post({ url: p.url, headers: { ...headers }, body, timeoutMs: VERIFICATION_TIMEOUT_MS });
  if (result.kind === "failed") {
    throw malformed("The destination did not pass verification.", { field: "url", verification_failure_reason: result.reason, ...(result.detail === undefined ? {} : { detail: result.detail }) });
  }
  if (result.status < 200 || result.status > 299) {
    throw malformed("The destination did not answer the verification probe with 2xx.", { field: "url", verification_failure_reason: "unexpected_status", status: result.status });
  }
}
