import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conformanceChecksUnder, spawnConformance } from "./testing/conformance-suite.ts";
import { answerConsent } from "./testing/oauth-consent.ts";
import { signUpPerson, type SignedInPerson } from "./testing/people.ts";
import { serveComposed, type ServedService } from "./testing/serve-composed.ts";

// Issue 15: the MCP conformance suite (@modelcontextprotocol/conformance, its `authorization`
// mode) against the composed server, headless: the suite prints the authorization URL and waits
// on its callback port; this test answers the consent as a signed-in person and lets the browser's
// redirect reach the suite's callback. On Node 20 the suite needs fs.globSync: register-fs-shim.

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the MCP conformance suite's authorization mode against the composed server", () => {
  let served: ServedService;
  let owner: SignedInPerson;
  let out: string;

  beforeAll(async () => {
    served = await serveComposed();
    owner = await signUpPerson(served.baseUrl, { email: "owner@conformance.test", password: "a long and quiet river", workspaceName: "conformance", inbox: served.smtp });
    out = mkdtempSync(join(tmpdir(), "agentq-conformance-"));
  });
  afterAll(async () => {
    await served?.close();
    if (out !== undefined) rmSync(out, { recursive: true, force: true });
  });

  it("passes every authorization-server check, the consent answered by a signed-in person", async () => {
    const base = served.baseUrl;
    const port = await freePort();
    const reg = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: "MCP conformance", redirect_uris: [`http://127.0.0.1:${port}/callback`] }) });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;

    const child = spawnConformance(["authorization", "--url", base, "--client-id", clientId, "--resource", `${base}/mcp`, "--port", String(port), "-o", out]);
    let output = "";
    const consents: Promise<void>[] = [];
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of chunk.toString().split("\n")) {
        if (!line.startsWith(`${base}/oauth/authorize?`)) continue;
        consents.push(
          (async () => {
            const { answer } = await answerConsent(line.trim(), owner.cookie, { approve: true });
            const location = answer?.headers.get("location");
            if (location === null || location === undefined) throw new Error(`consent answered ${answer?.status}`);
            // The browser follows the 303 to the suite's callback server.
            await fetch(location);
          })(),
        );
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    await Promise.all(consents);
    const checks = conformanceChecksUnder(out);
    const failed = checks.filter((c) => c.status === "FAILURE");
    expect(failed, output).toEqual([]);
    expect(checks.filter((c) => c.status === "SUCCESS").length, output).toBeGreaterThan(0);
    expect(consents.length, output).toBeGreaterThan(0);
    expect(code, output).toBe(0);
  }, 120_000);
});
