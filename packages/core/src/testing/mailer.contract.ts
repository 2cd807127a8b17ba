import { describe, expect, it } from "vitest";
import type { Mailer } from "../ports.ts";

/** A mail as the receiving side reads it back (an SMTP receiver, an .eml file, memory). */
export interface ReceivedMail {
  to: string;
  subject: string;
  /** The plain-text body, with the line breaks of the sent text (a receiver may end it with one more). */
  text: string;
  /** The HTML alternative, or null when the mail has none. */
  html: string | null;
}

/** A mailer under test and the way to read what it delivered. */
export interface MailerUnderTest {
  mailer: Mailer;
  /** Resolves with every mail delivered so far once there are at least `atLeast` (rejects after a few seconds otherwise). */
  received: (p: { atLeast: number }) => Promise<ReceivedMail[]>;
}

/**
 * The contract every Mailer passes (InMemoryMailer; the SMTP and .eml adapters of apps/server):
 * what was sent arrives once, with its recipient, subject, text and optional HTML intact,
 * including non-ASCII text and a long link on one line (reset and invitation links must survive
 * the transfer encoding); concurrent sends all arrive.
 * @param make a fresh mailer with an empty mailbox, called before each test.
 */
export function describeMailerContract(make: () => Promise<MailerUnderTest>): void {
  describe("Mailer contract", () => {
    const trimEnd = (text: string) => text.replace(/\s+$/, "");

    it("delivers the recipient, subject and text, with no HTML when none was given", async () => {
      const { mailer, received } = await make();
      await mailer.send({ to: "ada@example.com", subject: "Reset your password", text: "Line one.\nLine two." });
      const [mail, ...rest] = await received({ atLeast: 1 });
      expect(rest).toEqual([]);
      expect(mail?.to).toBe("ada@example.com");
      expect(mail?.subject).toBe("Reset your password");
      expect(trimEnd(mail?.text ?? "")).toBe("Line one.\nLine two.");
      expect(mail?.html).toBeNull();
    });

    it("delivers the HTML alternative beside the text", async () => {
      const { mailer, received } = await make();
      await mailer.send({ to: "bo@example.org", subject: "Invitation", text: "Join us.", html: "<p>Join <b>us</b>.</p>" });
      const [mail] = await received({ atLeast: 1 });
      expect(trimEnd(mail?.text ?? "")).toBe("Join us.");
      expect(mail?.html).toContain("<p>Join <b>us</b>.</p>");
    });

    it("keeps non-ASCII text and a long link on one line intact", async () => {
      const { mailer, received } = await make();
      const link = `https://queue.example.com/reset?token=${"x9".repeat(200)}`;
      const text = `Grüße, Zoë — 你好.\nOpen ${link}\nThat is all.`;
      await mailer.send({ to: "zoe@example.net", subject: "Ünïcödé subject — 你好", text });
      const [mail] = await received({ atLeast: 1 });
      expect(mail?.subject).toBe("Ünïcödé subject — 你好");
      expect(trimEnd(mail?.text ?? "")).toBe(text);
      expect(mail?.text.split("\n")).toContain(`Open ${link}`);
    });

    it("delivers every one of concurrent sends, each once", async () => {
      const { mailer, received } = await make();
      const addresses = Array.from({ length: 12 }, (_, i) => `person${i}@example.com`);
      await Promise.all(addresses.map((to, i) => mailer.send({ to, subject: `Mail ${i}`, text: `Body ${i}` })));
      const mails = await received({ atLeast: addresses.length });
      expect(mails.map((m) => m.to).sort()).toEqual([...addresses].sort());
      for (const m of mails) expect(trimEnd(m.text)).toBe(`Body ${m.subject.slice("Mail ".length)}`);
    });
  });
}
