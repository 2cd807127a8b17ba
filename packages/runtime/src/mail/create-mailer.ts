import type { Mailer } from "@agentq/core";
import { join } from "node:path";
import type { ServerEnv } from "../env.ts";
import { createEmlFileMailer } from "./eml-file-mailer.ts";
import { createSmtpMailer, redactSmtpUrl } from "./smtp-mailer.ts";

/** The mail folder of a data folder: where mails are written when SMTP_URL is not set. */
export function mailDir(dataDir: string): string {
  return join(dataDir, "mail");
}

/** The server's mail port and what it is, for the start-up log (never the password). */
export interface ConfiguredMailer {
  mailer: Mailer;
  /** `smtp://user:***@host:port` or the .eml folder. */
  describe: { transport: "smtp"; server: string } | { transport: "eml"; dir: string };
  /** Checks the SMTP server at start-up (resolves for the .eml folder); rejects with the reason. */
  verify(): Promise<void>;
}

/** The mail port of the composition (DESIGN §2b "Mail"): SMTP when SMTP_URL is set, else .eml files under `<dataDir>/mail/`. */
export function createMailer(env: Pick<ServerEnv, "smtpUrl" | "mailFrom" | "dataDir">): ConfiguredMailer {
  if (env.smtpUrl !== null) {
    const smtp = createSmtpMailer({ url: env.smtpUrl, from: env.mailFrom });
    return { mailer: smtp, describe: { transport: "smtp", server: redactSmtpUrl(env.smtpUrl) }, verify: () => smtp.verify() };
  }
  const dir = mailDir(env.dataDir);
  return { mailer: createEmlFileMailer({ dir, from: env.mailFrom }), describe: { transport: "eml", dir }, verify: async () => undefined };
}
