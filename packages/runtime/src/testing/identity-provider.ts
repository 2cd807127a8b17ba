import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

/** Who signs in at the test identity provider next. */
export interface TestIdpAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** A real OpenID Connect provider (`oidc-provider`) on 127.0.0.1 for tests. */
export interface TestIdentityProvider {
  /** The issuer identifier: `http://127.0.0.1:PORT`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The account the next login interaction signs in as (the test plays the person at the provider's login page). */
  signInAs(account: TestIdpAccount): void;
  /** Makes the next login interaction end with `error=access_denied` (the person cancels). */
  denyNext(): void;
  /** Authorization requests the provider received (query parameters), oldest first. */
  authorizationRequests: URLSearchParams[];
  close(): Promise<void>;
}

/**
 * Starts `oidc-provider` on 127.0.0.1 with one confidential client (client_secret_basic) whose
 * redirect URIs are `redirectUris`, PKCE required, and an interaction handler that stands in for
 * the provider's login and consent pages: it signs in as the account set with `signInAs` and
 * grants `openid email profile`. Claims come from that account, so a test decides the email and
 * whether it is verified. Keys are generated per run.
 */
export async function startTestIdentityProvider(p: { redirectUris: readonly string[] }): Promise<TestIdentityProvider> {
  const accounts = new Map<string, TestIdpAccount>();
  let current: TestIdpAccount | null = null;
  let deny = false;
  const authorizationRequests: URLSearchParams[] = [];
  const clientId = "agentq-test";
  const clientSecret = "test-client-secret-0123456789abcdef";
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const configuration: Configuration = {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [...p.redirectUris], grant_types: ["authorization_code"], response_types: ["code"], token_endpoint_auth_method: "client_secret_basic" }],
    jwks: { keys: [{ ...jwk, kid: "test-key", use: "sig", alg: "RS256" }] },
    cookies: { keys: ["test-cookie-key-0123456789abcdef"] },
    pkce: { required: () => true },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    // Explicit lifetimes (the provider's defaults print a notice each).
    ttl: { AccessToken: 600, AuthorizationCode: 60, IdToken: 600, Grant: 600, Interaction: 600, Session: 600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => {
      const account = accounts.get(id);
      if (account === undefined) return undefined;
      return { accountId: id, claims: () => ({ ...account }) };
    },
  };
  const provider = new Provider(issuer, configuration);
  const providerHandler = provider.callback();

  async function interaction(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      if (deny || current === null) {
        deny = false;
        await provider.interactionFinished(req, res, { error: "access_denied", error_description: "The person cancelled." }, { mergeWithLastSubmission: false });
        return;
      }
      accounts.set(current.sub, current);
      await provider.interactionFinished(req, res, { login: { accountId: current.sub } }, { mergeWithLastSubmission: false });
      return;
    }
    const grant = new provider.Grant({ accountId: details.session?.accountId ?? "", clientId: String(details.params.client_id) });
    grant.addOIDCScope("openid email profile");
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname === "/auth") authorizationRequests.push(url.searchParams);
    if (url.pathname.startsWith("/interaction/")) {
      interaction(req, res).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
      return;
    }
    void providerHandler(req, res);
  });

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (account) => {
      current = account;
    },
    denyNext: () => {
      deny = true;
    },
    authorizationRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
