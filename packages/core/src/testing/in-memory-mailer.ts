import type { MailMessage } from "../mail/mail-message.ts";
import type { Mailer } from "../ports.ts";

/** The Mailer of in-memory tests: keeps every mail in `sent`; `failing` makes sends reject. */
export class InMemoryMailer implements Mailer {
  /** Every mail handed over, oldest first. */
  readonly sent: MailMessage[] = [];
  /** While true, every send rejects and keeps nothing (a transport that is down). */
  failing = false;

  async send(message: MailMessage): Promise<void> {
    await Promise.resolve();
    if (this.failing) throw new Error("mail transport unavailable (InMemoryMailer.failing)");
    this.sent.push({ ...message });
  }

  /** The mails sent to `address`, oldest first. */
  to(address: string): MailMessage[] {
    return this.sent.filter((m) => m.to === address);
  }
}
