import { describeMailerContract } from "@agentq/core/testing";
import { sendMail } from "@agentq/core";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../env.ts";
import { readEmlMails, startSmtpReceiver, waitForEmlMails, type SmtpReceiver } from "../testing/mail-receivers.ts";
import { createMailer, mailDir } from "./create-mailer.ts";
import { createEmlFileMailer } from "./eml-file-mailer.ts";
import { createSmtpMailer, redactSmtpUrl } from "./smtp-mailer.ts";

const FROM = "agentq <no-reply@queue.example.com>";
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function receiver(p: Parameters<typeof startSmtpReceiver>[0] = {}): Promise<SmtpReceiver & { failNext: number }> {
  const r = await startSmtpReceiver(p);
  cleanups.push(() => r.close());
  return r;
}

function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentq-mail-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A port on 127.0.0.1 nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("SMTP mailer (nodemailer) against a real SMTP receiver on 127.0.0.1", () => {
  describeMailerContract(async () => {
    const r = await receiver();
    return { mailer: createSmtpMailer({ url: r.url, from: FROM }), received: ({ atLeast }) => r.waitFor({ atLeast }) };
  });

  it("sends from MAIL_FROM and logs in with the credentials of SMTP_URL", async () => {
    const r = await receiver({ login: { user: "agentq", pass: "s3cret/with:chars" } });
    const mailer = createSmtpMailer({ url: r.url, from: FROM });
    await mailer.verify();
    await mailer.send({ to: "ada@example.com", subject: "Hello", text: "Hi." });
    const [mail] = await r.waitFor();
    expect(mail?.from).toBe("no-reply@queue.example.com");
    expect(mail?.raw).toMatch(/^Message-ID: </im);
    expect(mail?.raw).toMatch(/^Date: /im);
  });

  it("rejects a wrong login, and sends nothing", async () => {
    const r = await receiver({ login: { user: "agentq", pass: "right" } });
    const mailer = createSmtpMailer({ url: r.url.replace(":right@", ":wrong@"), from: FROM });
    await expect(mailer.verify()).rejects.toThrow();
    await expect(mailer.send({ to: "ada@example.com", subject: "Hello", text: "Hi." })).rejects.toThrow();
    expect(r.mails).toEqual([]);
  });

  it("rejects when the server refuses the message or cannot be reached; sendMail turns either into SVC_SERVICE_UNAVAILABLE", async () => {
    const r = await receiver();
    r.failNext = 1;
    const mailer = createSmtpMailer({ url: r.url, from: FROM });
    await expect(sendMail({ mailer }, { to: "ada@example.com", subject: "Hello", text: "Hi." })).rejects.toMatchObject({ code: "SVC_SERVICE_UNAVAILABLE" });
    await mailer.send({ to: "ada@example.com", subject: "Again", text: "Hi." });
    expect((await r.waitFor()).map((m) => m.subject)).toEqual(["Again"]);
    const unreachable = createSmtpMailer({ url: `smtp://127.0.0.1:${await closedPort()}`, from: FROM });
    await expect(sendMail({ mailer: unreachable }, { to: "ada@example.com", subject: "Hello", text: "Hi." })).rejects.toMatchObject({ code: "SVC_SERVICE_UNAVAILABLE" });
  });

  it("redacts the password of SMTP_URL for the log", () => {
    expect(redactSmtpUrl("smtp://user:p%40ss@mail.example.com:587")).toBe("smtp://user:***@mail.example.com:587");
    expect(redactSmtpUrl("smtps://mail.example.com")).toBe("smtps://mail.example.com");
  });
});

describe(".eml file mailer", () => {
  describeMailerContract(async () => {
    const dir = join(scratchDir(), "mail");
    return { mailer: createEmlFileMailer({ dir, from: FROM }), received: ({ atLeast }) => waitForEmlMails(dir, { atLeast }) };
  });

  it("writes one whole file per mail, readable by its owner only, in a folder it creates, named in sending order", async () => {
    const dir = join(scratchDir(), "data", "mail");
    const mailer = createEmlFileMailer({ dir, from: FROM });
    for (const n of [1, 2, 3]) await mailer.send({ to: "ada@example.com", subject: `Mail ${n}`, text: `Body ${n}` });
    const names = readdirSync(dir);
    expect(names).toHaveLength(3);
    expect(names.every((n) => /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-[0-9a-f]{12}\.eml$/.test(n))).toBe(true);
    for (const n of names) expect(statSync(join(dir, n)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const mails = await readEmlMails(dir);
    expect(mails.map((m) => m.subject)).toEqual(["Mail 1", "Mail 2", "Mail 3"]);
    expect(mails[0]?.from).toBe("no-reply@queue.example.com");
    expect(mails[0]?.raw).toContain("\r\n");
  });

  it("rejects when the folder cannot be written, leaving no partial file", async () => {
    const base = scratchDir();
    const blocker = join(base, "not-a-folder");
    writeFileSync(blocker, "x");
    const mailer = createEmlFileMailer({ dir: join(blocker, "mail"), from: FROM });
    await expect(sendMail({ mailer }, { to: "ada@example.com", subject: "Hello", text: "Hi." })).rejects.toMatchObject({ code: "SVC_SERVICE_UNAVAILABLE" });
    expect(readdirSync(base)).toEqual(["not-a-folder"]);
  });
});

describe("createMailer: the transport from the environment", () => {
  it("writes .eml files under <AGENTQ_DATA_DIR>/mail without SMTP_URL", async () => {
    const dataDir = scratchDir();
    const env = readEnv({ AGENTQ_DATA_DIR: dataDir, PUBLIC_BASE_URL: "https://queue.example.com" });
    expect(env.smtpUrl).toBeNull();
    expect(env.mailFrom).toBe("agentq <no-reply@queue.example.com>");
    const configured = createMailer(env);
    expect(configured.describe).toEqual({ transport: "eml", dir: mailDir(dataDir) });
    await configured.verify();
    await configured.mailer.send({ to: "ada@example.com", subject: "Hello", text: "Hi." });
    expect((await readEmlMails(join(dataDir, "mail"))).map((m) => m.to)).toEqual(["ada@example.com"]);
  });

  it("sends through SMTP_URL when it is set, from MAIL_FROM", async () => {
    const r = await receiver();
    const env = readEnv({ AGENTQ_DATA_DIR: scratchDir(), SMTP_URL: r.url, MAIL_FROM: "Queue <queue@example.org>" });
    const configured = createMailer(env);
    expect(configured.describe).toMatchObject({ transport: "smtp" });
    await configured.verify();
    await configured.mailer.send({ to: "ada@example.com", subject: "Hello", text: "Hi." });
    expect((await r.waitFor()).map((m) => m.from)).toEqual(["queue@example.org"]);
  });

  it("defaults the sender's domain to localhost for an address-only base URL", () => {
    expect(readEnv({ PUBLIC_BASE_URL: "http://127.0.0.1:8080" }).mailFrom).toBe("agentq <no-reply@localhost>");
  });

  it.each([["ftp://mail.example.com"], ["not a url"], ["http://mail.example.com"]])("refuses SMTP_URL=%s at start-up", (url) => {
    expect(() => readEnv({ SMTP_URL: url })).toThrow(/SMTP_URL/);
  });

  it.each([["nobody"], ["a@example.com, b@example.com"]])("refuses MAIL_FROM=%s at start-up", (from) => {
    expect(() => readEnv({ MAIL_FROM: from })).toThrow(/MAIL_FROM/);
  });
});
