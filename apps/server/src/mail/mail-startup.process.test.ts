import { testDatabaseUrl } from "@agentq/postgres/testing";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createScratchDatabase, type ScratchDatabase } from "../testing/scratch-database.ts";
import { serverEnv, spawnServer, type SpawnedServer } from "../testing/spawn-server.ts";

// The real server process with an SMTP server that is down: it still starts and serves, says so
// in one warning, and never logs SMTP_URL's password.
describe("server start-up with an unreachable SMTP_URL", () => {
  let db: ScratchDatabase;
  let server: SpawnedServer;
  const password = "smtp-password-never-logged";

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    server = await spawnServer(serverEnv(db.url, { SMTP_URL: `smtp://agentq:${password}@127.0.0.1:${port}` }));
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill("SIGKILL");
    await server.exited;
    await db.drop();
  });

  it("serves, warns once that the SMTP server cannot be reached, and keeps the password out of the log", async () => {
    expect((await fetch(`${server.baseUrl}/v1/version`)).status).toBe(200);
    const deadline = Date.now() + 20_000;
    while (!server.output().includes("the SMTP server could not be reached") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const lines = server.output().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as { msg: string; level: number; mail?: { transport: string; server: string } });
    expect(lines.find((l) => l.msg === "mail transport")?.mail).toEqual({ transport: "smtp", server: expect.stringMatching(/^smtp:\/\/agentq:\*\*\*@127\.0\.0\.1:\d+$/) as unknown });
    expect(lines.filter((l) => l.msg.startsWith("the SMTP server could not be reached"))).toHaveLength(1);
    expect(server.output()).not.toContain(password);
  });
});
