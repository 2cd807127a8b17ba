import { malformed } from "../errors.ts";

/** The longest return address accepted. */
export const RETURN_TO_MAX_LENGTH = 2048;

/**
 * Where a browser goes after a sign-in through the identity provider (`return_to`): a path of
 * this service (`/`, `/messages?state=held`), never another site. An absolute URL is accepted
 * only on the service's own origin (`publicBaseUrl`) and becomes its path. Absent or empty: `/`.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field "return_to") for another origin, a
 *   scheme-relative (`//host`) or backslash path, control characters, or more than 2048 characters.
 */
export function parseReturnTo(value: string | undefined, publicBaseUrl: string): string {
  if (value === undefined || value === "") return "/";
  const refuse = () => malformed("return_to must be a path of this service, such as /.", { field: "return_to" });
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses.
  if (value.length > RETURN_TO_MAX_LENGTH || /[\u0000-\u001f\u007f\\]/.test(value)) throw refuse();
  let url: URL;
  try {
    url = new URL(value, publicBaseUrl);
  } catch {
    throw refuse();
  }
  const own = new URL(publicBaseUrl);
  if (url.origin !== own.origin) throw refuse();
  if (!value.startsWith("/") && !value.startsWith(own.origin + "/") && value !== own.origin) throw refuse();
  if (value.startsWith("//")) throw refuse();
  return `${url.pathname}${url.search}${url.hash}`;
}
