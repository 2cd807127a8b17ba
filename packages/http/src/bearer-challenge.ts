/**
 * The `WWW-Authenticate` value of a 401 (RFC 6750 §3): `Bearer` with the given auth-params, plus
 * `error="invalid_token"` when the request presented a credential (an Authorization header) that
 * cannot be used. A request without any credential gets no error code (RFC 6750 §3.1).
 */
export function bearerChallenge(params: readonly string[], authorization: string | null | undefined): string {
  const all = authorization ? [...params, 'error="invalid_token"'] : params;
  return all.length === 0 ? "Bearer" : `Bearer ${all.join(", ")}`;
}
