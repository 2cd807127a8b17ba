import type { Mailer } from "@agentq/core";
import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createTransport } from "nodemailer";
import { nodemailerOptions } from "./nodemailer-options.ts";

/**
 * Mail as files (DESIGN §2b: when SMTP_URL is not set): each mail is one RFC 5322 message
 * (CRLF line ends, as mail clients open them) in `dir`, named `<UTC time>-<random>.eml` so that
 * names sort in sending order. A file appears whole (written beside it under a dot-name, then
 * renamed) and only its owner may read it (mode 0600, folder 0700): mails carry reset links.
 */
export function createEmlFileMailer(p: { dir: string; from: string }): Mailer {
  const composer = createTransport({ streamTransport: true, buffer: true, newline: "windows", logger: false });
  return {
    async send(message) {
      const info = await composer.sendMail(nodemailerOptions(message, p.from));
      if (!Buffer.isBuffer(info.message)) throw new Error("the mail composer returned a stream, not a buffer");
      await mkdir(p.dir, { recursive: true, mode: 0o700 });
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomBytes(6).toString("hex")}.eml`;
      const partial = join(p.dir, `.${name}.partial`);
      try {
        await writeFile(partial, info.message, { mode: 0o600, flag: "wx" });
        await rename(partial, join(p.dir, name));
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
    },
  };
}
