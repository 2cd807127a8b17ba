/** The consent form of a rendered page: its hidden fields (the request's parameters and the token) and the AI accounts offered. */
export interface ConsentForm {
  hidden: Record<string, string>;
  accountIds: string[];
  /** The name the page proposes for a new AI account. */
  proposedName: string;
  /** True when the page offers Approve (an owner's or admin's). */
  canApprove: boolean;
  /** The toolsets the page offers, and those checked (a browser posts the checked ones). */
  toolsets: { offered: string[]; checked: string[] };
}

function decodeEntities(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Reads the consent form of an HTML page (the attributes as the dashboard renders them: type, name, value). */
export function parseConsentForm(html: string): ConsentForm {
  const hidden: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) hidden[decodeEntities(m[1] as string)] = decodeEntities(m[2] as string);
  const accountIds = [...html.matchAll(/<input type="radio" id="account-[^"]+" name="ai_account" value="([^"]+)"/g)].map((m) => m[1] as string).filter((v) => v !== "new");
  const proposedName = decodeEntities(/name="new_account_name" value="([^"]*)"/.exec(html)?.[1] ?? "");
  const boxes = [...html.matchAll(/<input type="checkbox" id="toolset-[^"]+" name="toolsets" value="([^"]+)"( checked="")?/g)];
  const toolsets = { offered: boxes.map((m) => m[1] as string), checked: boxes.filter((m) => m[2] !== undefined).map((m) => m[1] as string) };
  return { hidden, accountIds, proposedName, canApprove: html.includes('name="decision" value="approve"'), toolsets };
}

/**
 * Plays the browser of a signed-in person at the authorization endpoint: GET the authorization
 * URL with the session cookie, read the consent form, POST the decision from the service's own
 * origin (or with `originHeaders` in place of that Origin header). Returns both responses (the POST is not followed: its 303 goes to the client).
 */
export async function answerConsent(
  authorizationUrl: string,
  cookie: string,
  decision: { approve: boolean; aiAccount?: string; newAccountName?: string; toolsets?: string[]; alter?: (fields: Record<string, string>) => void; originHeaders?: Record<string, string> },
): Promise<{ page: Response; html: string; form: ConsentForm; answer: Response | null }> {
  const page = await fetch(authorizationUrl, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });
  const html = await page.text();
  if (page.status !== 200) return { page, html, form: { hidden: {}, accountIds: [], proposedName: "", canApprove: false, toolsets: { offered: [], checked: [] } }, answer: null };
  const form = parseConsentForm(html);
  const fields: Record<string, string> = { ...form.hidden, decision: decision.approve ? "approve" : "deny" };
  if (decision.approve) {
    fields.ai_account = decision.aiAccount ?? form.accountIds[0] ?? "new";
    fields.new_account_name = decision.newAccountName ?? form.proposedName;
  }
  decision.alter?.(fields);
  const body = new URLSearchParams(fields);
  if (decision.approve) for (const t of decision.toolsets ?? form.toolsets.checked) body.append("toolsets", t);
  const origin = new URL(authorizationUrl).origin;
  const answer = await fetch(`${origin}/oauth/authorize`, {
    method: "POST",
    headers: { Cookie: cookie, ...(decision.originHeaders ?? { Origin: origin }), "Content-Type": "application/x-www-form-urlencoded", Accept: "text/html" },
    body: body.toString(),
    redirect: "manual",
  });
  return { page, html, form, answer };
}
