import type { Mailer } from "@agentq/core";
import { createTransport } from "nodemailer";
import { nodemailerOptions } from "./nodemailer-options.ts";

/** Timeouts of one SMTP hand-over unless SMTP_URL's query sets others (nodemailer's own defaults wait minutes). */
export const SMTP_TIMEOUTS_MS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as const;

/** The SMTP mail adapter, with a reachability check for start-up. */
export interface SmtpMailer extends Mailer {
  /** Connects and authenticates without sending; rejects when the server cannot be reached or refuses the login. */
  verify(): Promise<void>;
}

/**
 * Mail through an SMTP server (nodemailer; DESIGN §2b): `url` is SMTP_URL, e.g.
 * `smtp://user:pass@mail.example.com:587` (STARTTLS when offered) or `smtps://...:465`; nodemailer's
 * URL query options (`?tls.rejectUnauthorized=false`, timeouts) apply. One connection per mail.
 * nodemailer's logger is off, so neither content nor credentials reach any log.
 */
export function createSmtpMailer(p: { url: string; from: string }): SmtpMailer {
  const transport = createTransport({ url: p.url, ...SMTP_TIMEOUTS_MS, logger: false, debug: false });
  return {
    async send(message) {
      await transport.sendMail(nodemailerOptions(message, p.from));
    },
    async verify() {
      await transport.verify();
    },
  };
}

/** SMTP_URL with any password replaced by `***`, for the start-up log line. */
export function redactSmtpUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return `${parsed.protocol}//${parsed.username === "" ? "" : `${parsed.username}${parsed.password === "" ? "" : `:${parsed.password}`}@`}${parsed.host}`;
  } catch {
    return "(unparsable SMTP_URL)";
  }
}
