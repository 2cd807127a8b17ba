import { Readable } from "node:stream";
import { OPERATIONAL_SCOPES, createAuthenticator } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps, seedAccount, seedTokenCredential } from "@agentq/core/testing";
import type { InMemoryWorld } from "@agentq/core/testing";
import { createMcpApp, McpSessions } from "@agentq/mcp";
import { createRestApp } from "@agentq/rest";
import { listenHttp } from "@agentq/http";
import type { CliIo } from "@agentq/cli";

/** The real REST and MCP apps over in-memory core deps, on one real socket (tests only). */
export interface ServiceUnderTest {
  world: InMemoryWorld;
  /** `http://127.0.0.1:<port>` */
  url: string;
  workspaceId: string;
  /** A new AI account with an operational credential holding every operational scope. */
  agent(): Promise<{ friendlyName: string; token: string }>;
  close(): Promise<void>;
}

/** Starts the REST app (under /v1) and the MCP app (/mcp) on 127.0.0.1 at a free port. */
export async function startService(): Promise<ServiceUnderTest> {
  const world = createInMemoryDeps();
  const authenticator = createAuthenticator(world.deps);
  const rest = createRestApp(world.deps, { authenticator, logger: { error: () => undefined } });
  // Its own sessions, ended before the listener drains (as the composition root does): a client's
  // GET stream would otherwise hold the drain open until the session's idle timeout.
  const sessions = new McpSessions(world.deps);
  const mcp = createMcpApp(world.deps, { authenticator, sessions });
  const fetch = (request: Request): Response | Promise<Response> => {
    const path = new URL(request.url).pathname;
    return path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/.well-known/") ? mcp.fetch(request) : rest.fetch(request);
  };
  // The production server's timeouts (keep-alive 65 s): a client never reuses a socket the server is closing.
  const listener = await listenHttp(fetch, { hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${listener.address.port}`;
  const close = () => {
    sessions.close();
    return listener.close();
  };
  const ws = await bootstrapScenarioWorkspace(world, "cli-test", authenticator);
  return {
    world,
    url,
    workspaceId: ws.workspace_id,
    async agent() {
      const account = await seedAccount(world, ws.workspace_id);
      const { token } = await seedTokenCredential(world, account, { scopes: [...OPERATIONAL_SCOPES] });
      return { friendlyName: account.friendlyName, token };
    },
    close,
  };
}

/** A CliIo capturing stdout and stderr, with the given environment and optional stdin text. */
export function captureIo(env: Record<string, string | undefined>, stdinText?: string): CliIo & { out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
    ...(stdinText === undefined ? {} : { stdin: Readable.from([Buffer.from(stdinText)]) }),
    out: () => out,
    err: () => err,
  };
}
