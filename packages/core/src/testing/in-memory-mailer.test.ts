import { describe, expect, it } from "vitest";
import { DomainError } from "../errors.ts";
import { sendMail } from "../mail/send-mail.ts";
import { InMemoryMailer } from "./in-memory-mailer.ts";
import { describeMailerContract } from "./mailer.contract.ts";

describe("InMemoryMailer", () => {
  describeMailerContract(async () => {
    const mailer = new InMemoryMailer();
    return { mailer, received: async () => mailer.sent.map((m) => ({ to: m.to, subject: m.subject, text: m.text, html: m.html ?? null })) };
  });

  it("rejects and keeps nothing while failing", async () => {
    const mailer = new InMemoryMailer();
    mailer.failing = true;
    await expect(mailer.send({ to: "a@example.com", subject: "s", text: "t" })).rejects.toThrow();
    expect(mailer.sent).toEqual([]);
  });
});

describe("sendMail", () => {
  const message = { to: "a@example.com", subject: "Hello", text: "Body" };

  it("hands a well-formed message to the mailer", async () => {
    const mailer = new InMemoryMailer();
    await sendMail({ mailer }, message);
    expect(mailer.to("a@example.com")).toEqual([message]);
  });

  it("gives SVC_SERVICE_UNAVAILABLE without a mailer, and when the mailer fails", async () => {
    await expect(sendMail({}, message)).rejects.toMatchObject({ code: "SVC_SERVICE_UNAVAILABLE" });
    const mailer = new InMemoryMailer();
    mailer.failing = true;
    const error: unknown = await sendMail({ mailer }, message).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("SVC_SERVICE_UNAVAILABLE");
  });

  it.each([
    ["two recipients", { ...message, to: "a@example.com, b@example.com" }],
    ["a display name", { ...message, to: "Ada <a@example.com>" }],
    ["a header injected through the address", { ...message, to: "a@example.com\r\nBcc: b@example.com" }],
    ["a header injected through the subject", { ...message, subject: "Hi\r\nBcc: b@example.com" }],
    ["an empty subject", { ...message, subject: "" }],
    ["an empty body", { ...message, text: "" }],
    ["an empty HTML part", { ...message, html: "" }],
  ])("refuses a message with %s and sends nothing", async (_, bad) => {
    const mailer = new InMemoryMailer();
    const error: unknown = await sendMail({ mailer }, bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(DomainError);
    expect(mailer.sent).toEqual([]);
  });
});
