import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerConsent } from "./testing/oauth-consent.ts";
import { signUpPerson, type SignedInPerson } from "./testing/people.ts";
import { serveComposed, type ServedService } from "./testing/serve-composed.ts";

// Issue 15: the MCP conformance suite (@modelcontextprotocol/conformance, its `authorization`
// mode) against the composed server, headless: the suite prints the authorization URL and waits
// on its callback port; this test answers the consent as a signed-in person and lets the browser's
// redirect reach the suite's callback. On Node 20 the suite needs fs.globSync: register-fs-shim.

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const CONFORMANCE = join(SERVER_DIR, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const SHIM = fileURLToPath(new URL("../conformance/register-fs-shim.mjs", import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every check the suite wrote under `dir` (checks.json files), flattened. */
function checksUnder(dir: string): Array<{ id?: string; status: string; errorMessage?: string }> {
  const found: Array<{ id?: string; status: string; errorMessage?: string }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...checksUnder(path));
    else if (name === "checks.json") found.push(...(JSON.parse(readFileSync(path, "utf8")) as Array<{ status: string }>));
  }
  return found;
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

    const child = spawn(process.execPath, ["--import", SHIM, CONFORMANCE, "authorization", "--url", base, "--client-id", clientId, "--resource", `${base}/mcp`, "--port", String(port), "-o", out], { cwd: SERVER_DIR, stdio: ["ignore", "pipe", "pipe"] });
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
    const checks = checksUnder(out);
    const failed = checks.filter((c) => c.status === "FAILURE");
    expect(failed, output).toEqual([]);
    expect(checks.filter((c) => c.status === "SUCCESS").length, output).toBeGreaterThan(0);
    expect(consents.length, output).toBeGreaterThan(0);
    expect(code, output).toBe(0);
  }, 120_000);
});
