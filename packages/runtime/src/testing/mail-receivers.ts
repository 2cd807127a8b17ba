import type { ReceivedMail } from "@agentq/core/testing";
import { readdir, readFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { simpleParser, type AddressObject } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A mail read back by a test: what the mail port's contract compares, plus the sender and the raw message. */
export interface TestMail extends ReceivedMail {
  /** The From header's address. */
  from: string;
  /** The whole message as received (headers and encoded body). */
  raw: string;
}

/** Parses one RFC 5322 message (mailparser) into what tests read. */
export async function parseMail(raw: Buffer | string): Promise<TestMail> {
  const parsed = await simpleParser(raw);
  const firstAddress = (field: AddressObject | AddressObject[] | undefined) => (Array.isArray(field) ? field[0] : field)?.value[0]?.address ?? "";
  return {
    to: firstAddress(parsed.to),
    from: firstAddress(parsed.from),
    subject: parsed.subject ?? "",
    text: parsed.text ?? "",
    html: typeof parsed.html === "string" ? parsed.html : null,
    raw: typeof raw === "string" ? raw : raw.toString("utf8"),
  };
}

/** Polls `read` until it gives at least `atLeast` mails, or rejects after `timeoutMs`. */
async function waitForMails(read: () => Promise<TestMail[]>, atLeast: number, timeoutMs: number): Promise<TestMail[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = await read();
    if (mails.length >= atLeast) return mails;
    if (Date.now() > deadline) throw new Error(`expected at least ${atLeast} mail(s) within ${timeoutMs} ms, got ${mails.length}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps every mail it accepts. */
export interface SmtpReceiver {
  /** SMTP_URL for it: `smtp://127.0.0.1:PORT`, with the credentials when it requires a login. */
  url: string;
  /** The mails accepted so far, in arrival order. */
  mails: TestMail[];
  /** Resolves with the mails once there are at least `atLeast` (default 1); rejects after `timeoutMs` (default 5 s). */
  waitFor(p?: { atLeast?: number; timeoutMs?: number }): Promise<TestMail[]>;
  /** The mails sent to `address`. */
  to(address: string): TestMail[];
  close(): Promise<void>;
}

/**
 * Starts an SMTP receiver on 127.0.0.1 on a free port: plain SMTP (no STARTTLS), and with `login`
 * it requires AUTH with exactly those credentials (535 otherwise). Every message is parsed and
 * kept; `failNext` of them are refused with a 451 instead.
 */
export async function startSmtpReceiver(p: { login?: { user: string; pass: string } } = {}): Promise<SmtpReceiver & { failNext: number }> {
  const mails: TestMail[] = [];
  const receiver = { failNext: 0 };
  const server = new SMTPServer({
    logger: false,
    disabledCommands: p.login === undefined ? ["STARTTLS", "AUTH"] : ["STARTTLS"],
    authOptional: p.login === undefined,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (p.login !== undefined && auth.username === p.login.user && auth.password === p.login.pass) callback(null, { user: auth.username });
      else callback(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (receiver.failNext > 0) {
          receiver.failNext -= 1;
          callback(Object.assign(new Error("Temporary failure (test receiver)"), { responseCode: 451 }));
          return;
        }
        parseMail(Buffer.concat(chunks)).then(
          (mail) => {
            mails.push(mail);
            callback(null);
          },
          (error: unknown) => callback(error instanceof Error ? error : new Error(String(error))),
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  const credentials = p.login === undefined ? "" : `${encodeURIComponent(p.login.user)}:${encodeURIComponent(p.login.pass)}@`;
  return Object.assign(receiver, {
    url: `smtp://${credentials}127.0.0.1:${port}`,
    mails,
    waitFor: (w: { atLeast?: number; timeoutMs?: number } = {}) => waitForMails(async () => [...mails], w.atLeast ?? 1, w.timeoutMs ?? 5_000),
    to: (address: string) => mails.filter((m) => m.to === address),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The .eml files of a mail folder (`<AGENTQ_DATA_DIR>/mail`), parsed, oldest first; none when the folder does not exist yet. */
export async function readEmlMails(dir: string): Promise<TestMail[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".eml") && !n.startsWith(".")).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return Promise.all(names.map(async (n) => parseMail(await readFile(join(dir, n)))));
}

/** Waits until the mail folder holds at least `atLeast` mails (default 1; only those sent `to` one address when given), then returns them. */
export function waitForEmlMails(dir: string, p: { atLeast?: number; timeoutMs?: number; to?: string } = {}): Promise<TestMail[]> {
  const read = async () => (await readEmlMails(dir)).filter((m) => p.to === undefined || m.to === p.to);
  return waitForMails(read, p.atLeast ?? 1, p.timeoutMs ?? 5_000);
}
