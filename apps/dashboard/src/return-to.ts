/**
 * Where to go after signing in: a path of this site only (an absolute or protocol-relative URL,
 * or anything odd, becomes the overview), so the sign-in page is no open redirect.
 */
export function safeReturnTo(value: string | undefined): string {
  if (value === undefined || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\") || /\p{Cc}/u.test(value)) return "/";
  return value;
}
