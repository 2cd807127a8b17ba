import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

/**
 * An MCP client's OAuth state kept in memory, as the SDK's OAuthClientProvider: it registers
 * itself (dynamic registration) with a loopback redirect URI, keeps what the SDK saves unchanged,
 * and, instead of opening a browser, records the authorization URL for the test to play the
 * browser with.
 */
export class RecordingOAuthProvider implements OAuthClientProvider {
  /** Every authorization URL the SDK asked to open, oldest first. */
  readonly authorizationUrls: URL[] = [];
  /** Every set of tokens saved, oldest first (the refresh rule's tests replay old ones). */
  readonly savedTokens: OAuthTokens[] = [];
  private client: OAuthClientInformationMixed | undefined;
  private current: OAuthTokens | undefined;
  private verifier = "";
  private lastState = "";

  constructor(
    readonly redirectUrl: string,
    private readonly name = "agentq test MCP client",
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" };
  }

  /** A fresh state per authorization request; `expectedState` tells the test what must come back. */
  state(): string {
    this.lastState = `state-${Math.random().toString(36).slice(2)}`;
    return this.lastState;
  }

  get expectedState(): string {
    return this.lastState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.current;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.current = tokens;
    this.savedTokens.push(tokens);
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "client") this.client = undefined;
    if (scope === "all" || scope === "tokens") this.current = undefined;
    if (scope === "all" || scope === "verifier") this.verifier = "";
  }
}

/**
 * A new SDK client and its Streamable HTTP transport to `<url>/mcp`, authorized by `provider`.
 * `settled()` resolves once every request the transport started has been answered: the SDK
 * opens its GET stream without awaiting it, and a test that moves the clock must not let that
 * request land on the other side of the move.
 */
export function oauthMcpClient(url: string, provider: OAuthClientProvider): { client: Client; transport: StreamableHTTPClientTransport; settled: () => Promise<void> } {
  const pending = new Set<Promise<unknown>>();
  const tracked: typeof fetch = (input, init) => {
    const p = fetch(input, init);
    pending.add(p);
    void p.then(
      () => pending.delete(p),
      () => pending.delete(p),
    );
    return p;
  };
  const settled = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };
  return { client: new Client({ name: "agentq-oauth-test", version: "0.0.0" }), transport: new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider, fetch: tracked }), settled };
}

/** True when `e` is the SDK's UnauthorizedError (the transport needs the person's approval first). */
export function isUnauthorizedError(e: unknown): boolean {
  return e instanceof UnauthorizedError;
}
