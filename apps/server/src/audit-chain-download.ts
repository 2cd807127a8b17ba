/** How `downloadAuditChain` waits out retryable refusals (429 SVC_RATE_LIMITED, 503 SVC_SERVICE_UNAVAILABLE). */
export interface RetryWaits {
  /** Consecutive retryable refusals tolerated on one page before giving up (each followed by one wait). */
  maxWaitsPerPage: number;
  /** The longest single wait, whatever Retry-After says. */
  maxDelayMs: number;
  /** The first wait when a refusal carries no usable Retry-After; it doubles with each wait in a row. */
  defaultDelayMs: number;
}

/**
 * Defaults: up to 5 waits per page, each at most 60 s (a rate-limit window is one minute, so a
 * longer Retry-After is not ours to honour), 1 s, 2 s, 4 s... when Retry-After is missing.
 */
export const DEFAULT_RETRY_WAITS: RetryWaits = { maxWaitsPerPage: 5, maxDelayMs: 60_000, defaultDelayMs: 1_000 };

/** What `downloadAuditChain` returns: the chain items as JSON lines, or why it stopped. */
export type AuditChainDownload = { ok: true; lines: string[] } | { ok: false; status: number; code: string | null };

/**
 * Reads a workspace's whole sealed audit chain, oldest first, page by page from
 * GET /v1/audit-log/chain (100 items a page), and returns each item as one JSON line, as
 * `pnpm audit:verify` reads them.
 *
 * A retryable refusal (429, and 503, which the error catalogue marks retryable too) is waited out
 * and the same page asked again: the wait is the response's Retry-After (seconds or an HTTP
 * date), else a doubling backoff from `waits.defaultDelayMs`, capped at `waits.maxDelayMs`, at
 * most `waits.maxWaitsPerPage` times in a row; `onWait` is told before each wait. Any other
 * failure, or one refusal too many, ends the download with the status and the error code of the
 * envelope (null when the body is not one).
 */
export async function downloadAuditChain(p: {
  baseUrl: string;
  token: string;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  waits?: RetryWaits;
  onWait?: (delayMs: number, attempt: number, status: number) => void;
}): Promise<AuditChainDownload> {
  const fetchPage = p.fetch ?? fetch;
  const sleep = p.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = p.now ?? Date.now;
  const waits = p.waits ?? DEFAULT_RETRY_WAITS;
  const lines: string[] = [];
  let cursor: string | null = null;
  let waited = 0;
  for (;;) {
    const url = new URL(`${p.baseUrl}/v1/audit-log/chain`);
    url.searchParams.set("limit", "100");
    if (cursor !== null) url.searchParams.set("cursor", cursor);
    const res = await fetchPage(url, { headers: { authorization: `Bearer ${p.token}` } });
    const body = (await res.json().catch(() => ({}))) as { items?: unknown; next_cursor?: string | null; error?: { code?: string } };
    if (RETRYABLE_STATUSES.has(res.status) && waited < waits.maxWaitsPerPage) {
      waited += 1;
      const delayMs = retryDelayMs(res.headers.get("retry-after"), now(), waits, waited);
      p.onWait?.(delayMs, waited, res.status);
      await sleep(delayMs);
      continue;
    }
    if (!res.ok || !Array.isArray(body.items)) return { ok: false, status: res.status, code: body.error?.code ?? null };
    waited = 0;
    for (const item of body.items) lines.push(JSON.stringify(item));
    cursor = body.next_cursor ?? null;
    if (cursor === null) return { ok: true, lines };
  }
}

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

// Retry-After is delay-seconds or an HTTP date (RFC 9110 §10.2.3); without one, back off
// exponentially from the default (`attempt` counts from 1).
function retryDelayMs(header: string | null, nowMs: number, waits: RetryWaits, attempt: number): number {
  const text = header?.trim() ?? "";
  let delayMs = waits.defaultDelayMs * 2 ** (attempt - 1);
  if (/^\d+$/.test(text)) delayMs = Number(text) * 1000;
  else if (text !== "" && !Number.isNaN(Date.parse(text))) delayMs = Math.max(0, Date.parse(text) - nowMs);
  return Math.min(delayMs, waits.maxDelayMs);
}
