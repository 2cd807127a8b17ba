/**
 * What one OIDC sign-in attempt keeps between the redirect to the identity provider and its
 * callback (DESIGN §2b "OIDC sign-in"): the values that bind the callback to this browser and
 * this request. Kept in a signed, short-lived cookie (`sealOidcAttempt`).
 */
export interface OidcAttempt {
  /** The `state` sent with the authorization request; the callback must carry it back. */
  state: string;
  /** The `nonce` the ID token must carry. */
  nonce: string;
  /** The PKCE code verifier whose S256 challenge went with the request. */
  codeVerifier: string;
}

/** Who the identity provider says signed in: claims of a verified ID token (and userinfo). */
export interface OidcIdentity {
  /** The provider's issuer identifier. */
  issuer: string;
  /** The `sub` claim: the person's id at the provider. */
  subject: string;
  /** The `email` claim, or null when the provider sent none. */
  email: string | null;
  /** The `email_verified` claim (false when absent). */
  emailVerified: boolean;
  /** The `name` claim, or null. */
  name: string | null;
}

/**
 * An identity at an OpenID Connect provider linked to a person (DESIGN §2c): signing in through
 * the provider as this issuer and subject signs in that person, whatever email the provider
 * reports. Made when OIDC signs a new person up, or from the person's settings (a signed-in
 * person links the identity they sign in with at the provider). An (issuer, subject) pair is
 * linked to at most one person across the service.
 */
export interface LinkedIdentity {
  id: string;
  workspaceId: string;
  personId: string;
  /** The provider's issuer identifier. */
  issuer: string;
  /** The `sub` claim at that provider. */
  subject: string;
  createdAt: Date;
}
