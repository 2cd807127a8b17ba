// Errors as the dashboard says them: a plain sentence first, then what the service's details
// say (the fields at fault, the webhook's verification failure, ...); the SVC_ code comes last,
// for support. Pure.

/** The plain sentence of each code a person meets on the dashboard; others use the catalogue's summary. */
const SENTENCES: Readonly<Record<string, string>> = {
  SVC_MALFORMED_REQUEST: "Something in the form was not accepted.",
  SVC_UNAUTHENTICATED: "You are not signed in, or the code was not right.",
  SVC_TIER_INSUFFICIENT: "Your role does not allow this: a viewer can look but not change anything.",
  SVC_SCOPE_INSUFFICIENT: "This is something only an AI account's credential can do, not a person.",
  SVC_STEP_UP_REQUIRED: "This needs a fresh code from your authenticator app first.",
  SVC_RESOURCE_NOT_FOUND: "This does not exist, or not in your workspace.",
  SVC_RESOURCE_CONFLICT: "This cannot be done in its current state (it may have just changed).",
  SVC_FROZEN: "The AI account or the workspace is frozen.",
  SVC_WORKSPACE_CLOSED: "The workspace is closed.",
  SVC_PLAN_LIMIT_EXCEEDED: "Your plan's limit is reached.",
  SVC_RATE_LIMITED: "Too many attempts in a short time: wait a little and try again.",
  SVC_CURSOR_EXPIRED: "This page of the list is out of date: start again from the first page.",
  SVC_CSRF_REJECTED: "The form did not come from this site, so nothing was done.",
  SVC_PAYLOAD_TOO_LARGE: "What was sent is too large.",
  SVC_DEAD_LETTERED: "The message has been dead-lettered.",
  SVC_EXPIRED: "The message expired.",
  SVC_LEGALLY_WITHHELD: "This is withheld after a legal notice.",
  SVC_ROUTE_NOT_FOUND: "There is no page at this address.",
  SVC_SERVICE_UNAVAILABLE: "The service could not do this just now: try again in a moment.",
};

/** What each webhook verification failure means (details.verification_failure_reason). */
const VERIFICATION_REASONS: Readonly<Record<string, string>> = {
  destination_not_public: "the address resolves to a private or local network, which webhooks may not reach",
  dns_failure: "the host name could not be resolved",
  connection_failed: "the connection to the destination failed",
  timeout: "the destination did not answer in time",
  invalid_url: "the address is not a valid https URL",
  unexpected_status: "the destination answered the verification request with a status other than 2xx",
};

/** The plain sentence for `code`, else `summary` (the catalogue's), else a generic one. */
export function plainSentence(code: string, summary: string | undefined): string {
  return SENTENCES[code] ?? summary ?? "The request was refused.";
}

/** One schema error of details.errors in words: "state: is not one of the accepted values". */
export function fieldProblem(e: { path?: unknown; message?: unknown }): string {
  const path = typeof e.path === "string" ? e.path.replace(/^\//, "").replaceAll("/", " › ") : "";
  const message = typeof e.message === "string" ? e.message : "";
  const said = wordsFor(message);
  return path === "" ? said : `${path}: ${said}`;
}

function wordsFor(message: string): string {
  if (message === "Expected union value") return "is not one of the accepted values";
  if (message === "Expected required property") return "is missing";
  if (message === "Unexpected property") return "is not expected here";
  if (message === "Expected string") return "must be text";
  if (message === "Expected integer" || message === "Expected number") return "must be a number";
  if (message === "Expected boolean") return "must be yes or no";
  const longest = /^Expected string length less or equal to (\d+)$/.exec(message);
  if (longest) return `is too long (at most ${longest[1]} characters)`;
  const shortest = /^Expected string length greater or equal to (\d+)$/.exec(message);
  if (shortest) return `is too short (at least ${shortest[1]} characters)`;
  return message === "" ? "is not valid" : message;
}

/** The details worth showing, as term and text: everything but `errors` (listed on its own). */
export function detailLines(details: Record<string, unknown> | undefined): { term: string; text: string }[] {
  if (details === undefined) return [];
  const lines: { term: string; text: string }[] = [];
  for (const [key, value] of Object.entries(details)) {
    if (key === "errors" || value === null || value === undefined) continue;
    if (key === "verification_failure_reason" && typeof value === "string") {
      lines.push({ term: "Why the verification failed", text: `${VERIFICATION_REASONS[value] ?? value} (${value})` });
      continue;
    }
    const text = typeof value === "string" ? value : Array.isArray(value) && value.every((v) => typeof v === "string") ? value.join(", ") : JSON.stringify(value);
    lines.push({ term: key.replaceAll("_", " "), text: text.length > 300 ? `${text.slice(0, 300)}…` : text });
  }
  return lines;
}
