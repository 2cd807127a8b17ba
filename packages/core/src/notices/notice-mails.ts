import type { CoreDeps } from "../deps.ts";
import { sendMail } from "../mail/send-mail.ts";
import type { MailMessage } from "../mail/mail-message.ts";
import type { Notice } from "./notice.ts";
import { REDRESS, statementOfReasons } from "./notice-views.ts";

/** Who a notice mail goes to, and why. */
export interface NoticeMail {
  to: "notifier" | "owner";
  purpose: "receipt" | "information_request" | "decision" | "statement_of_reasons" | "counter_notice" | "restoration" | "upheld";
  message: MailMessage;
}

/** What became of one notice mail: handed to the mail port, failed (no port, transport refused), or no address to send to. */
export interface NoticeMailOutcome {
  to: NoticeMail["to"];
  purpose: NoticeMail["purpose"];
  outcome: "sent" | "failed";
}

const statusUrl = (base: string, n: Notice) => `${base}/v1/notices/${n.id}`;
const kindName = (n: Notice) => (n.kind === "dmca" ? "DMCA notice" : "DSA notice");
const lines = (...parts: (string | null)[]) => parts.filter((p): p is string => p !== null).join("\n");

function notifierMail(n: Notice, purpose: NoticeMail["purpose"], subject: string, text: string): NoticeMail[] {
  const email = n.submission.notifier.email;
  return email === null ? [] : [{ to: "notifier", purpose, message: { to: email, subject, text } }];
}

/** The receipt to the notifier (DSA Art. 16(4)): sent after the intake commits. */
export function receiptMails(n: Notice, base: string): NoticeMail[] {
  return notifierMail(
    n,
    "receipt",
    `Your ${kindName(n)} ${n.id} was received`,
    lines(
      `We received your ${kindName(n)} on ${n.receivedAt.toISOString()} (category: ${n.category}).`,
      `Its id is ${n.id}. Its status: GET ${statusUrl(base, n)} with the header Notice-Token set to the status token the submission answered with.`,
      "We review it without undue delay and write to you with the decision. You may add information (POST .../supplement) or withdraw it (POST .../withdraw) with the same token.",
    ),
  );
}

/** The operator's request for more information, to the notifier. */
export function informationRequestMails(n: Notice, base: string, text: string): NoticeMail[] {
  return notifierMail(n, "information_request", `Your notice ${n.id}: more information needed`, lines(`About your ${kindName(n)} ${n.id}, we need more information:`, "", text, "", `Reply with POST ${statusUrl(base, n)}/supplement and your status token in the Notice-Token header.`));
}

/** The decision, to the notifier (DSA Art. 16(5)), with the redress. */
export function decisionMails(n: Notice): NoticeMail[] {
  const d = n.decision;
  if (d === null) return [];
  const outcome = d.outcome === "action_taken" ? "We took action on the content you reported." : d.outcome === "dismissed" ? "We dismissed the notice." : "We decided to take no action.";
  return notifierMail(n, "decision", `Your notice ${n.id}: decided (${d.outcome})`, lines(`About your ${kindName(n)} ${n.id}: ${outcome}`, "", `Reasons: ${d.reason}`, "", REDRESS.notifier.replace("{id}", n.id)));
}

/** The statement of reasons, to the affected workspace's owner (DSA Art. 17). */
export function statementOfReasonsMails(n: Notice, base: string, ownerEmail: string | null): NoticeMail[] {
  const sor = statementOfReasons(n);
  if (sor === null || ownerEmail === null) return [];
  const measures = n.measures.map((m) => `- ${m.type.replace("_", " ")}: ${m.itemId}`).join("\n");
  return [
    {
      to: "owner",
      purpose: "statement_of_reasons",
      message: {
        to: ownerEmail,
        subject: `Statement of reasons: ${kindName(n)} ${n.id}`,
        text: lines(
          `Following a ${kindName(n)} received on ${n.receivedAt.toISOString()}, we restricted content of your workspace:`,
          measures,
          "",
          `Facts and circumstances: ${n.decision?.reason ?? ""}`,
          n.kind === "dmca" ? "Ground: copyright infringement claimed under 17 U.S.C. 512(c)." : `Ground: illegal content (${n.category}), Regulation (EU) 2022/2065 Art. 16.`,
          "No automated means were used to decide.",
          "",
          REDRESS.workspace.replace("{id}", n.id),
          `The notice as disclosed to your workspace: GET ${statusUrl(base, n)} with an administrative credential.`,
        ),
      },
    },
  ];
}

/** A copy of a DMCA counter-notice, to the notifier (17 U.S.C. 512(g)(2)(B)), with the restoration date. */
export function counterNoticeMails(n: Notice): NoticeMail[] {
  if (n.kind !== "dmca" || n.counterNotice === null || n.restoration === null) return [];
  const elements = Object.entries(n.counterNotice.elements)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join("\n");
  return notifierMail(
    n,
    "counter_notice",
    `Counter-notice to your DMCA notice ${n.id}`,
    lines(
      `The subscriber filed a counter-notice to your DMCA notice ${n.id} on ${n.counterNotice.filedAt.toISOString()}:`,
      "",
      elements,
      "",
      `We will replace the removed material on ${n.restoration.earliestAt.toISOString()} (10 business days), unless before then you tell our designated agent that you have filed an action seeking a court order to restrain the subscriber from the infringing activity.`,
    ),
  );
}

/** The lifting of the measures, to the owner and the notifier. */
export function restorationMails(n: Notice, ownerEmail: string | null, reason: string): NoticeMail[] {
  const text = lines(`The measures taken after ${kindName(n)} ${n.id} were lifted on ${n.updatedAt.toISOString()}.`, `Reason: ${reason}`);
  return [...(ownerEmail === null ? [] : [{ to: "owner" as const, purpose: "restoration" as const, message: { to: ownerEmail, subject: `Notice ${n.id}: measures lifted`, text } }]), ...notifierMail(n, "restoration", `Your notice ${n.id}: measures lifted`, text)];
}

/** A contested notice upheld, to the owner. */
export function upheldMails(n: Notice, ownerEmail: string | null, reason: string): NoticeMail[] {
  return ownerEmail === null ? [] : [{ to: "owner", purpose: "upheld", message: { to: ownerEmail, subject: `Notice ${n.id}: your counter-notice was not upheld`, text: lines(`The measures taken after ${kindName(n)} ${n.id} stay in force.`, `Reason: ${reason}`, "", REDRESS.workspace.replace("{id}", n.id)) } }];
}

/**
 * Hands each mail to the mail port, after the step's transaction committed. Never throws: a mail
 * that cannot be handed over (no port, the transport refused) is reported as `failed`, and the
 * step it follows stays made; the operator's command prints the outcomes.
 */
export async function deliverNoticeMails(deps: Pick<CoreDeps, "mailer">, mails: readonly NoticeMail[]): Promise<NoticeMailOutcome[]> {
  const outcomes: NoticeMailOutcome[] = [];
  for (const mail of mails) {
    let outcome: NoticeMailOutcome["outcome"] = "sent";
    try {
      await sendMail(deps, mail.message);
    } catch {
      outcome = "failed";
    }
    outcomes.push({ to: mail.to, purpose: mail.purpose, outcome });
  }
  return outcomes;
}
