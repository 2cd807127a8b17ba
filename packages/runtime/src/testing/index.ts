// Test stand-ins for what runtime's adapters talk to, exported as "@agentq/runtime/testing": an
// SMTP receiver and the .eml folder reader (the mailers), an OpenID Connect provider and a
// browser's redirect walk (the OIDC client).
export { parseMail, readEmlMails, startSmtpReceiver, waitForEmlMails } from "./mail-receivers.ts";
export type { SmtpReceiver, TestMail } from "./mail-receivers.ts";
export { startTestIdentityProvider } from "./identity-provider.ts";
export type { TestIdentityProvider, TestIdpAccount } from "./identity-provider.ts";
export { TestBrowser } from "./test-browser.ts";
