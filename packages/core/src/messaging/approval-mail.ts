import { administers } from "../people/person-access.ts";
import type { CoreDeps } from "../deps.ts";
import { sendMail } from "../mail/send-mail.ts";
import type { MailMessage } from "../mail/mail-message.ts";
import { MINUTE_MS } from "../time/duration.ts";
import type { MessageRecord } from "./message.ts";

/** The anonymous-limit bucket that spaces the approvers' mails: one window per workspace. */
const APPROVAL_MAIL_BUCKET = "approval_mail";

/** At most one "something waits for your approval" mail per workspace per this long. */
export const APPROVAL_MAIL_INTERVAL_MS = MINUTE_MS;

/** The mail that tells an approver something waits (no payload: the dashboard shows it to people signed in). */
export function approvalWaitingMail(p: { to: string; workspaceName: string; publicBaseUrl: string; message: MessageRecord; policyName: string }): MailMessage {
  const link = `${p.publicBaseUrl}/approvals/${p.message.id}`;
  return {
    to: p.to,
    subject: `A message waits for your approval in ${p.workspaceName}`.slice(0, 200),
    text: [
      `A message from ${p.message.senderName} to ${p.message.recipientName} (template ${p.message.template}, priority ${p.message.priority}) waits for a person's approval: the policy ${p.policyName} holds it.`,
      "",
      `Approve or reject it: ${link}`,
      `Everything that waits: ${p.publicBaseUrl}/approvals`,
      "",
      `It expires at ${p.message.expiresAt.toISOString()} if no one decides.`,
      "You receive at most one of these mails a minute; later ones wait in the list.",
    ].join("\n"),
  };
}

/**
 * Tells the workspace's owners and admins that a message waits for approval: at most one mail
 * per workspace per minute (a window of the shared anonymous-limit counters, taken atomically,
 * so concurrent held sends on any process mail once). Never throws: a mail that cannot be handed
 * over (or a service without a mail port or public URL) is skipped, and the waiting list and the
 * dashboard's badge still show what waits. Returns how many mails were handed over.
 */
export async function mailApprovers(deps: CoreDeps, p: { workspaceName: string; message: MessageRecord; policyName: string }): Promise<number> {
  try {
    if (deps.mailer === undefined || deps.publicBaseUrl === undefined) return 0;
    const publicBaseUrl = deps.publicBaseUrl;
    const window = await deps.stores.anonymousLimits.hit({ bucket: APPROVAL_MAIL_BUCKET, key: p.message.workspaceId, now: deps.clock.now(), windowMs: APPROVAL_MAIL_INTERVAL_MS, cost: 1 });
    if (window.count !== 1) return 0;
    const approvers = (await deps.stores.workspacePeople.list({ workspaceId: p.message.workspaceId })).filter((person) => administers(person.role));
    let sent = 0;
    for (const person of approvers) {
      try {
        await sendMail(deps, approvalWaitingMail({ to: person.email, workspaceName: p.workspaceName, publicBaseUrl, message: p.message, policyName: p.policyName }));
        sent += 1;
      } catch {
        // Not retried: the list shows what waits (docs/decisions.md, approvals).
      }
    }
    return sent;
  } catch {
    return 0;
  }
}
