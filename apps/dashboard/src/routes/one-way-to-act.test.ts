import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// Issue 27, "one way to act": a page acts through the catalogue (`kit.run`, the REST/MCP
// executor), never by calling a use case of the core, so codes, audit rows, rate limits and
// step-up rules are the same whichever edge acted. The core's values a route file may import:
// error builders and tests, constants, and what docs/architecture.md lists as a page's own reads.
const ALLOWED = new Set(["DomainError", "isDomainError", "malformed", "notFound", "MESSAGING_LIMITS", "SET_PASSWORD_PAGES", "pendingTotpEnrolment"]);
// A protocol endpoint with no operation (docs/architecture.md): the OAuth authorization endpoint.
const PROTOCOL_ENDPOINTS = new Set(["oauth-consent-routes.tsx"]);

const ROUTES_DIR = new URL(".", import.meta.url).pathname;

/** The value (not type) names a file imports from @agentq/core. */
function coreValueImports(source: string): string[] {
  const names: string[] = [];
  for (const m of source.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+"@agentq\/core"/g)) {
    if (m[1] !== undefined) continue;
    for (const part of (m[2] ?? "").split(",")) {
      const name = part.trim();
      if (name !== "" && !name.startsWith("type ")) names.push(name.split(/\s+as\s+/)[0] as string);
    }
  }
  return names;
}

describe("dashboard routes act through the catalogue", () => {
  const files = readdirSync(ROUTES_DIR).filter((f) => f.endsWith("-routes.tsx") && !PROTOCOL_ENDPOINTS.has(f));

  it("reads every route file", () => {
    expect(files.length).toBeGreaterThan(15);
  });

  it.each(files)("%s imports no use case of the core", (file) => {
    const imported = coreValueImports(readFileSync(join(ROUTES_DIR, file), "utf8"));
    expect(imported.filter((name) => !ALLOWED.has(name))).toEqual([]);
  });

  it("finds a use case imported beside types (the check can fail)", () => {
    expect(coreValueImports('import { invitePerson, type PersonPrincipal } from "@agentq/core";')).toEqual(["invitePerson"]);
    expect(coreValueImports('import type { Principal } from "@agentq/core";')).toEqual([]);
  });
});
