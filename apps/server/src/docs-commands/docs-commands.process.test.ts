import { OPERATIONAL_SCOPES } from "@agentq/core";
import { testDatabaseUrl } from "@agentq/postgres/testing";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpTokenIn } from "@agentq/core/testing";
import { readEmlMails } from "@agentq/runtime/testing";
import { createScratchDatabase, type ScratchDatabase } from "../testing/scratch-database.ts";
import { REPO_ROOT, runPnpm, serverEnv, spawnServer, stopProcessGroup, type SpawnedServer } from "../testing/spawn-server.ts";
import { COMMAND_CHECKS, STANDARD_PLACEHOLDERS, type CommandCheck, type DocsWorld } from "./command-checks.ts";
import { documentedCommands, type DocumentedCommand } from "./documented-commands.ts";
import { ShellSession, type ShellResult } from "./shell-session.ts";

// Every documented command that can run here, run as a reader runs it: block by block, each block
// in one bash from the repository's root, against a server started with `pnpm start` on a
// scratch database. Placeholders (`agq_ad_...`, `<message_id>`, WORKSPACE_ID) take the values the
// reader's own run would have printed. Which commands are not run, and why: command-checks.ts.
const SECRET_KEY = "test-secret-key-0123456789abcdef0123456789abcdef";

const blocks = new Map<string, DocumentedCommand[]>();
for (const command of documentedCommands(REPO_ROOT)) {
  const name = `${command.file} block ${command.block + 1}`;
  blocks.set(name, [...(blocks.get(name) ?? []), command]);
}
const runnable = [...blocks].filter(([, commands]) => commands.some((c) => ["run", "serve"].includes(COMMAND_CHECKS[c.key]?.kind ?? "")));

describe("the documented commands, run as a reader runs them", () => {
  let db: ScratchDatabase;
  let server: SpawnedServer;
  let shellEnv: NodeJS.ProcessEnv;
  let world: DocsWorld;
  let pnpmHome: string;

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    const env = serverEnv(db.url, { SVC_SECRET_KEY: SECRET_KEY });
    server = await spawnServer(env, 90_000, { argv: ["pnpm", "start"], cwd: REPO_ROOT });
    const boot = await runPnpm(["-s", "bootstrap", "--workspace", "docs-world", "--email", "ops@docs-world.test", "--json"], env);
    expect(boot.code, boot.stderr).toBe(0);
    const { workspace_id, token: adminToken } = JSON.parse(boot.stdout) as { workspace_id: string; token: string };
    const api = async (token: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> => {
      const res = await fetch(`${server.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const answer = (await res.json()) as Record<string, any>;
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const builder = await api(adminToken, "POST", "/v1/ai-accounts", { friendly_name: "builder" });
    await api(adminToken, "POST", "/v1/ai-accounts", { friendly_name: "bob" });
    await api(adminToken, "POST", "/v1/ai-accounts", { friendly_name: "reviewer" });
    const opToken = String((await api(adminToken, "POST", "/v1/credentials", { ai_account_id: builder.id, tier: "operational", scopes: [...OPERATIONAL_SCOPES], name: "docs@test" })).token);
    const send = () => api(opToken, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "builder" }, template: "directive" }, payload: { directive_kind: "task", summary: "s", instructions: "i" } });
    world = {
      bindings: { base_url: server.baseUrl, workspace_id, admin_token: adminToken, op_token: opToken, database_url: db.url, secret_key: SECRET_KEY, repo: REPO_ROOT },
      async sentMessage() {
        return { message_id: String((await send()).message_id) };
      },
      async sealedMessage() {
        const message_id = String((await send()).message_id);
        // The sealer runs every second; the receipt answers 409 (not_sealed_yet) until then.
        const deadline = Date.now() + 30_000;
        for (;;) {
          const res = await fetch(`${server.baseUrl}/v1/messages/${message_id}/receipt`, { headers: { Authorization: `Bearer ${opToken}` } });
          await res.body?.cancel();
          if (res.status === 200) return { message_id };
          if (res.status !== 409 || Date.now() > deadline) throw new Error(`receipt of ${message_id}: ${res.status}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      },
      async signUpToken(address) {
        const deadline = Date.now() + 5_000;
        for (;;) {
          const mails = (await readEmlMails(join(env.AGENTQ_DATA_DIR!, "mail"))).filter((m) => m.to === address);
          const token = signUpTokenIn(mails.at(-1)?.text ?? "");
          if (token !== null) return token;
          if (Date.now() > deadline) throw new Error(`no sign-up mail to ${address}`);
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      async claimedMessage() {
        const sent = String((await send()).message_id);
        // Claim until the fresh one comes up (older ones the docs left pending come first).
        for (let i = 0; i < 20; i++) {
          const batch = await api(opToken, "POST", "/v1/messages/get-pending", { max: 100 });
          const mine = (batch.items as { envelope: { message_id: string }; lease: { lease_id: string } }[]).find((m) => m.envelope.message_id === sent);
          if (mine !== undefined) return { message_id: sent, lease_id: mine.lease.lease_id };
        }
        throw new Error("the fresh message was never claimed");
      },
    };
    // `pnpm link --global` links into PNPM_HOME: a folder of this run, never the user's.
    pnpmHome = mkdtempSync(join(tmpdir(), "agentq-pnpm-home-"));
    shellEnv = { ...env, PNPM_HOME: pnpmHome, PATH: `${pnpmHome}:${process.env.PATH ?? ""}`, SVC_BASE_URL: server.baseUrl };
  }, 180_000);

  afterAll(async () => {
    await stopProcessGroup(server);
    await db.drop();
    rmSync(pnpmHome, { recursive: true, force: true });
  });

  it("started the server with `pnpm start`", () => {
    expect(server.output()).toContain('"agentq listening"');
  });

  for (const [name, commands] of runnable) {
    it(`runs ${name}`, async () => {
      const shell = new ShellSession({ cwd: REPO_ROOT, env: shellEnv });
      const bindings: Record<string, string> = { ...world.bindings };
      const problems: string[] = [];
      const written = new Set<string>();
      try {
        for (const command of commands) {
          const check = COMMAND_CHECKS[command.key] as CommandCheck;
          if (check.kind === "not-run" || check.kind === "the-server") continue;
          if (check.kind === "serve") {
            const problem = await serveUntilReady(fill(check.as ?? command.text, bindings), check.ready, shellEnv);
            if (problem !== null) problems.push(`${command.key}\n  ${problem}`);
            continue;
          }
          if (check.setup !== undefined) Object.assign(bindings, await check.setup(world));
          const result = await shell.run(fill(check.as ?? command.text, bindings));
          for (const f of check.writes ?? []) written.add(f);
          const problem = (check.expect ?? succeeded)(result);
          if (problem !== null) {
            problems.push(`${command.key}\n  ${problem}\n  stdout: ${result.stdout.slice(0, 600)}\n  stderr: ${result.stderr.slice(0, 600)}`);
            break;
          }
          if (check.bind !== undefined) Object.assign(bindings, check.bind(result));
        }
      } finally {
        shell.close();
        for (const f of written) rmSync(join(REPO_ROOT, f), { force: true });
      }
      expect(problems).toEqual([]);
    }, 240_000);
  }
});

// The documented text with its placeholders replaced by the world's values.
function fill(text: string, bindings: Readonly<Record<string, string>>): string {
  let out = text;
  for (const [placeholder, name] of STANDARD_PLACEHOLDERS) out = out.split(placeholder).join(name);
  return out.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = bindings[name];
    if (value === undefined || value === "") throw new Error(`no value for {{${name}}} in: ${text}`);
    return value;
  });
}

// Exit 0, and an answer that is not an error envelope.
function succeeded(r: ShellResult): string | null {
  if (r.code !== 0) return `exit ${r.code}`;
  const last = r.stdout.trim().split("\n").at(-1) ?? "";
  try {
    const value = JSON.parse(last) as unknown;
    if (typeof value === "object" && value !== null && "error" in value) return `answered an error: ${last}`;
  } catch {
    // Not JSON: human output.
  }
  return null;
}

// Starts a long-running command in its own process group, waits for its ready line, then stops it.
async function serveUntilReady(command: string, ready: RegExp, env: NodeJS.ProcessEnv): Promise<string | null> {
  const child = spawn("bash", ["-c", command], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const problem = await new Promise<string | null>((resolve) => {
    const timer = setTimeout(() => resolve(`no ready line within 60 s:\n${output}`), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(null);
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then(() => {
      clearTimeout(timer);
      resolve(ready.test(output) ? null : `exited before it was ready:\n${output}`);
    });
  });
  await stopProcessGroup({ child, exited });
  return problem;
}
