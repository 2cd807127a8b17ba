import { assertSafeStrings } from "@agentq/core";
import type { MiddlewareHandler } from "hono";

/**
 * Refuses a request whose query string holds a parameter (name or value) with U+0000 or a lone
 * surrogate once decoded (DESIGN §2c), before any route reads it: 400 SVC_MALFORMED_REQUEST with
 * `details.errors[].path` `/<parameter name>`, thrown for the app's error handler to render in its
 * own way (the envelope, a page). The same check (`assertSafeStrings`) as bodies and forms get.
 * Decoding follows URLSearchParams, where malformed UTF-8 becomes U+FFFD, so in practice `%00` is
 * what this catches.
 */
export function refuseUnsafeQuery(): MiddlewareHandler {
  return async (c, next) => {
    const url = c.req.url;
    const at = url.indexOf("?");
    if (at !== -1 && at < url.length - 1) {
      // A Map, not an object: a parameter may be called __proto__.
      const params = new Map<string, string[]>();
      for (const [name, value] of new URLSearchParams(url.slice(at + 1))) {
        const values = params.get(name);
        if (values === undefined) params.set(name, [value]);
        else values.push(value);
      }
      // One value is reported as `/name`, repeated ones as `/name/i`.
      assertSafeStrings(Object.fromEntries([...params].map(([name, values]) => [name, values.length === 1 ? values[0] : values])));
    }
    await next();
  };
}
