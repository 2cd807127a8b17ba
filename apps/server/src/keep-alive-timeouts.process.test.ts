import { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS } from "@agentq/http";
import { testDatabaseUrl } from "@agentq/postgres/testing";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, get, type ClientRequest } from "node:http";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleServer, PRODUCTION_NODE_FLAGS } from "./bundle.ts";
import { createScratchDatabase, type ScratchDatabase } from "./testing/scratch-database.ts";
import { REPO_ROOT, serverEnv, spawnServer, stopProcessGroup, type SpawnedServer } from "./testing/spawn-server.ts";

// Issue 25, item 11 (DESIGN §2c): Node's default keep-alive timeout (5 s) races clients: one that
// reuses a connection idle for about that long meets a reset before any response. Every server a
// user starts listens with keepAliveTimeout 65 s and headersTimeout 66 s: read back from each
// real listening server (its "agentq listening" line reports the server object's own values),
// and shown by behaviour: a connection idle for 6 s still serves the next request.

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const IDLE_MS = 6_000;

/** An entry point as a user starts it, and a path it serves without a credential. */
interface EntryPoint {
  name: string;
  argv: (bundle: string) => readonly [string, ...string[]];
  cwd: string;
  path: string;
}

const ENTRY_POINTS: readonly EntryPoint[] = [
  { name: "pnpm start", argv: () => ["pnpm", "start"], cwd: REPO_ROOT, path: "/v1/version" },
  { name: "the production bundle (pnpm start:prod)", argv: (bundle) => [process.execPath, ...PRODUCTION_NODE_FLAGS, bundle], cwd: SERVER_DIR, path: "/v1/version" },
  { name: "the REST API alone (pnpm --filter @agentq/rest start)", argv: () => ["pnpm", "--filter", "@agentq/rest", "start"], cwd: REPO_ROOT, path: "/v1/version" },
  { name: "the MCP endpoint alone (pnpm --filter @agentq/mcp start)", argv: () => ["pnpm", "--filter", "@agentq/mcp", "start"], cwd: REPO_ROOT, path: "/.well-known/oauth-protected-resource/mcp" },
];

/** GET `url` through `agent`; the status and the socket it went out on, once the body is read. */
function getThrough(agent: Agent, url: string): Promise<{ status: number; socket: Socket; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = get(url, { agent }, (res) => {
      res.resume();
      res.once("end", () => resolve({ status: res.statusCode ?? 0, socket: req.socket as Socket, reused: req.reusedSocket }));
    });
    req.once("error", reject);
  });
}

describe("keep-alive and headers timeouts of every server a user starts", () => {
  let db: ScratchDatabase;
  let bundleDir: string;
  let bundle: string;
  const started: Array<{ entry: EntryPoint; server: SpawnedServer }> = [];

  beforeAll(async () => {
    db = await createScratchDatabase(testDatabaseUrl());
    bundleDir = mkdtempSync(join(tmpdir(), "agentq-bundle-"));
    bundle = await bundleServer(SERVER_DIR, bundleDir);
    // One after the other: the first applies the migrations the others find done.
    for (const entry of ENTRY_POINTS) {
      const server = await spawnServer(serverEnv(db.url), 90_000, { argv: entry.argv(bundle), cwd: entry.cwd });
      started.push({ entry, server });
    }
  }, 300_000);
  afterAll(async () => {
    for (const { server } of started) await stopProcessGroup(server);
    if (bundleDir !== undefined) rmSync(bundleDir, { recursive: true, force: true });
    await db?.drop();
  }, 60_000);

  it("each listens with keepAliveTimeout 65 s and headersTimeout 66 s (read back from the listening server)", () => {
    expect([KEEP_ALIVE_TIMEOUT_MS, HEADERS_TIMEOUT_MS]).toEqual([65_000, 66_000]);
    expect(started.map(({ entry }) => entry.name)).toEqual(ENTRY_POINTS.map((e) => e.name));
    for (const { entry, server } of started) {
      const line = server.output().split("\n").find((l) => l.includes('"agentq listening"'));
      const listening = JSON.parse(line ?? "{}") as { keep_alive_timeout_ms?: number; headers_timeout_ms?: number; base_url?: string };
      expect([listening.keep_alive_timeout_ms, listening.headers_timeout_ms], entry.name).toEqual([65_000, 66_000]);
      // PORT=0: the service's own origin names the port really bound.
      expect(listening.base_url, entry.name).toBe(server.baseUrl);
    }
  });

  it(`each serves a request on a connection left idle for ${IDLE_MS / 1000} s (the same socket, not a new one)`, async () => {
    // Concurrently: the idle wait is the same for all.
    await Promise.all(
      started.map(async ({ entry, server }) => {
        const agent = new Agent({ keepAlive: true, maxSockets: 1 });
        try {
          const first = await getThrough(agent, `${server.baseUrl}${entry.path}`);
          expect(first.status, entry.name).toBe(200);
          let closedBy: string | null = null;
          first.socket.once("close", () => (closedBy = "the server closed the idle connection"));
          await new Promise((r) => setTimeout(r, IDLE_MS));
          expect(closedBy, entry.name).toBeNull();
          const second = await getThrough(agent, `${server.baseUrl}${entry.path}`);
          expect([second.status, second.reused, second.socket === first.socket], entry.name).toEqual([200, true, true]);
        } finally {
          agent.destroy();
        }
      }),
    );
  });
});
