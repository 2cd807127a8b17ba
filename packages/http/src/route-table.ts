import type { HttpMethod } from "@agentq/core";

interface RouteEntry {
  method: HttpMethod;
  pattern: RegExp;
}

/**
 * The app's routes as templates (`/v1/messages/{message_id}/ack`), kept so an unmatched
 * request can be told apart: a path no route has (404 SVC_ROUTE_NOT_FOUND) or a path that exists
 * for other methods (405 SVC_METHOD_NOT_ALLOWED with those methods in Allow).
 */
export class RouteTable {
  readonly #entries: RouteEntry[] = [];

  /** Records a route; `{name}` segments match one non-empty path segment, like Hono's `:name`. */
  add(method: HttpMethod, template: string): void {
    this.#entries.push({ method, pattern: templatePattern(template) });
  }

  /** The methods some route accepts on `path` (HEAD included wherever GET is), in a stable order; empty when no route has the path. */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const entry of this.#entries) {
      if (!entry.pattern.test(path)) continue;
      methods.add(entry.method);
      if (entry.method === "GET") methods.add("HEAD");
    }
    return METHOD_ORDER.filter((m) => methods.has(m));
  }
}

const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/** `/v1/messages/{message_id}/ack` -> the Hono path `/v1/messages/:message_id/ack`. */
export function toHonoPath(template: string): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ":$1");
}

/** The `{name}` parameters of a path template, in order. */
export function pathParameterNames(template: string): string[] {
  return [...template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1] ?? "");
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)
    .map((part) => (part.startsWith("{") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`);
}
