// Test support for running the real server process, exported as "@agentq/server/testing": the one
// door through which tooling (the benchmark, the fault-injection run) reaches this app, including
// the production bundle they measure (STYLE: tooling imports apps only through a testing export).
export { createScratchDatabase } from "./scratch-database.ts";
export type { ScratchDatabase } from "./scratch-database.ts";
export { bootstrapWorkspace, REPO_ROOT, runPnpm, runServerCommand, serverEnv, spawnServer, stopProcessGroup } from "./spawn-server.ts";
export type { SpawnedServer } from "./spawn-server.ts";
export { parseMail, readEmlMails, startSmtpReceiver, waitForEmlMails } from "@agentq/runtime/testing";
export type { SmtpReceiver, TestMail } from "@agentq/runtime/testing";
export { cookieFrom, mailsTo, nextMailTo, sessionHeaders, signInPerson, signUpPerson, seedPerson, SESSION_COOKIE, PENDING_MFA_COOKIE } from "./people.ts";
export type { SignedInPerson, TestInbox } from "./people.ts";
export { answerConsent, parseConsentForm } from "./oauth-consent.ts";
export type { ConsentForm } from "./oauth-consent.ts";
export { bundleServer, PRODUCTION_NODE_FLAGS } from "../bundle.ts";
export { buildGoVerifier } from "./go-verifier.ts";
