import { testDatabaseUrl } from "@agentq/postgres/testing";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForEmlMails } from "@agentq/runtime/testing";
import { signInPerson, signUpPerson } from "./testing/people.ts";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { serverEnv, spawnServer, type SpawnedServer } from "./testing/spawn-server.ts";

// The real server process without SMTP_URL: a person signs up through the link of the .eml file it
// wrote under <AGENTQ_DATA_DIR>/mail/, then a forgotten password is reset from the token of the
// next one, and neither a token nor the address ever reaches its log.
describe("password reset through the real server process and its .eml mail folder", () => {
  let db: ScratchDatabase;
  let env: NodeJS.ProcessEnv;
  let server: SpawnedServer;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    env = serverEnv(db.url);
    server = await spawnServer(env);
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await server.exited;
    await db.drop();
  });

  it("signs up through the mailed link, asks for a reset, reads the mailed token from the .eml file, sets a new password and signs in with it", async () => {
    const address = "forgetful@process.test";
    const emlDir = join(env.AGENTQ_DATA_DIR!, "mail");
    await signUpPerson(server.baseUrl, { email: address, password: "the first long password", workspaceName: "Forgetful", inbox: { emlDir } });
    const [signUpMail] = await waitForEmlMails(emlDir);
    const signUpToken = /#token=(agq_ev_[A-Za-z0-9_-]{43})/.exec(signUpMail?.text ?? "")?.[1] ?? "";
    expect(signUpToken).not.toBe("");
    const asked = await fetch(`${server.baseUrl}/v1/auth/password-reset`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email: address }) });
    expect(asked.status).toBe(202);
    const mail = (await waitForEmlMails(emlDir, { atLeast: 2 }))[1];
    expect(mail?.to).toBe(address);
    const token = /#token=(agq_pr_[A-Za-z0-9_-]{43})/.exec(mail?.text ?? "")?.[1] ?? "";
    expect(token).not.toBe("");
    const confirmed = await fetch(`${server.baseUrl}/v1/auth/password-reset/confirm`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token, password: "the second long password" }) });
    expect(confirmed.status).toBe(204);
    expect((await signInPerson(server.baseUrl, { email: address, password: "the second long password" })).body.person.email).toBe(address);
    expect(server.output()).toContain('"msg":"mail transport"');
    expect(server.output()).not.toContain(token);
    expect(server.output()).not.toContain(token.slice("agq_pr_".length));
    expect(server.output()).not.toContain(signUpToken.slice("agq_ev_".length));
    expect(server.output()).not.toContain(address);
  });
});
