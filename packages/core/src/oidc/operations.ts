import { Type } from "@sinclair/typebox";
import { defineOperation, PEOPLE_SURFACES } from "../operation.ts";

// The OIDC area of the catalogue (DESIGN §2b): whether a browser may sign in with an identity
// provider. The sign-in itself (/v1/auth/oidc/start and /callback) is a pair of browser
// redirects carrying the attempt cookie, served by the REST app's oidc-routes.ts.

export const getOidcProviderOp = defineOperation({
  name: "get_oidc_provider",
  summary: "Whether sign-in with an identity provider is configured, and its label.",
  http: { method: "GET", path: "/v1/auth/oidc" },
  auth: { kind: "public" },
  surfaces: PEOPLE_SURFACES,
  idempotency: "none",
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({ enabled: Type.Boolean({ description: "True when an identity provider is configured." }), label: Type.Optional(Type.String({ description: "The provider's label, for the sign-in button." })) }),
  successStatus: 200,
  async handler(deps) {
    return { body: deps.oidc === undefined ? { enabled: false } : { enabled: true, label: deps.oidc.label } };
  },
});

/** The OIDC area's catalogue entries. */
export const OIDC_OPERATIONS = [getOidcProviderOp];
