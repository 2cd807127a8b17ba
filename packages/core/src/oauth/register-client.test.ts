import { describe, expect, it } from "vitest";
import { isOAuthError } from "../errors.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { checkRedirectUri, redirectHost, redirectUriAllowed } from "./redirect-uris.ts";
import { registerClient } from "./register-client.ts";

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "none";
  } catch (e) {
    if (isOAuthError(e)) return e.code;
    throw e;
  }
}

describe("redirect URIs (RFC 8252, DESIGN §2b)", () => {
  it.each([
    ["https://app.example.com/cb", true],
    ["http://localhost:33418/callback", true],
    ["http://127.0.0.1/", true],
    ["http://[::1]:7/cb", true],
    ["cursor://anysphere.cursor-retrieval/oauth/user-agentq/callback", true],
    ["com.example.app:/oauth2redirect", true],
    ["http://example.com/cb", false],
    ["http://10.0.0.1/cb", false],
    ["https://app.example.com/cb#frag", false],
    ["https://user:pw@app.example.com/cb", false],
    ["javascript:alert(1)", false],
    ["data:text/html,hi", false],
    ["file:///etc/passwd", false],
    ["not a uri", false],
    ["/relative", false],
  ])("%s accepted: %s", (uri, ok) => {
    expect(checkRedirectUri(uri).ok).toBe(ok);
  });

  it("matches exactly, and loopback http on any port with the same host, path and query", () => {
    const registered = ["http://127.0.0.1:3000/callback", "http://localhost/cb?x=1", "https://app.example.com/cb", "cursor://a.b/cb"];
    expect(redirectUriAllowed(registered, "http://127.0.0.1:3000/callback")).toBe(true);
    expect(redirectUriAllowed(registered, "http://127.0.0.1:51234/callback")).toBe(true);
    expect(redirectUriAllowed(registered, "http://localhost:9/cb?x=1")).toBe(true);
    expect(redirectUriAllowed(registered, "cursor://a.b/cb")).toBe(true);
    expect(redirectUriAllowed(registered, "http://localhost:3000/callback")).toBe(false);
    expect(redirectUriAllowed(registered, "http://127.0.0.1:3000/other")).toBe(false);
    expect(redirectUriAllowed(registered, "https://app.example.com:444/cb")).toBe(false);
    expect(redirectUriAllowed(registered, "https://app.example.com/cb/")).toBe(false);
    expect(redirectUriAllowed(registered, "cursor://a.b/cb2")).toBe(false);
  });

  it("shows host[:port], or the scheme of a hostless private-use URI", () => {
    expect(redirectHost("http://localhost:33418/callback")).toBe("localhost:33418");
    expect(redirectHost("cursor://anysphere.cursor-retrieval/oauth")).toBe("anysphere.cursor-retrieval");
    expect(redirectHost("com.example.app:/cb")).toBe("com.example.app:");
  });
});

describe("client registration (RFC 7591)", () => {
  it("keeps the good URIs, drops a bad one, coerces the auth method to none and says so", async () => {
    const { deps } = createInMemoryDeps();
    const { client, response } = await registerClient(deps, {
      client_name: "Cursor\u0007",
      redirect_uris: ["cursor://anysphere.cursor-retrieval/oauth/callback", "http://evil.example/cb", "http://127.0.0.1:6274/oauth/callback"],
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code", "refresh_token", "client_credentials"],
      unknown_field: { nested: true },
      scope: "send bogus ack",
    });
    expect(response).toMatchObject({
      client_id: client.id,
      client_name: "Cursor",
      redirect_uris: ["cursor://anysphere.cursor-retrieval/oauth/callback", "http://127.0.0.1:6274/oauth/callback"],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      scope: "send ack",
      refused_redirect_uris: [{ redirect_uri: "http://evil.example/cb", reason: "http_not_loopback" }],
    });
    expect(response).not.toHaveProperty("unknown_field");
    expect(response).not.toHaveProperty("client_secret");
    expect(await deps.stores.oauth.findClient({ clientId: client.id })).toEqual(client);
  });

  it("refuses a registration with no acceptable URI, without authorization_code, or that is not an object", async () => {
    const { deps } = createInMemoryDeps();
    expect(await refusal(registerClient(deps, { redirect_uris: ["http://evil.example/cb"] }))).toBe("invalid_redirect_uri");
    expect(await refusal(registerClient(deps, { redirect_uris: [] }))).toBe("invalid_redirect_uri");
    expect(await refusal(registerClient(deps, {}))).toBe("invalid_redirect_uri");
    expect(await refusal(registerClient(deps, { redirect_uris: ["https://a.example/cb"], grant_types: ["client_credentials"] }))).toBe("invalid_client_metadata");
    expect(await refusal(registerClient(deps, { redirect_uris: ["https://a.example/cb"], response_types: ["token"] }))).toBe("invalid_client_metadata");
    expect(await refusal(registerClient(deps, [1, 2]))).toBe("invalid_client_metadata");
    expect(await refusal(registerClient(deps, { redirect_uris: Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`) }))).toBe("invalid_client_metadata");
  });
});
