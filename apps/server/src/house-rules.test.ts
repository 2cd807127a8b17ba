import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// DESIGN §1 and STYLE "As the house grows": dependencies point inward. An app never imports
// another app's source (by package name or by relative path) and no package imports an app;
// tooling reaches an app only through its public `testing` export; no import leaves its own
// package's folder by a relative path. The one app that composes others is apps/server, the
// all-in-one composition root: it mounts them through their packages' public exports.

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const GROUPS = ["apps", "packages", "tooling"] as const;
/** Folders whose files are read: sources and tests, never node_modules or build output. */
const SOURCE_FOLDERS = ["src", "test", "bin"];
const SOURCE_FILE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs)$/;
/** The composition roots that may import other apps, and which ones (docs/decisions.md, issue 27). */
const COMPOSES_APPS: Readonly<Record<string, readonly string[]>> = {
  "@agentq/server": ["@agentq/rest", "@agentq/mcp", "@agentq/oauth", "@agentq/dashboard", "@agentq/dispatcher", "@agentq/cli"],
};

interface Workspace {
  name: string;
  group: (typeof GROUPS)[number];
  dir: string;
  declared: ReadonlySet<string>;
}

function workspaces(): Workspace[] {
  const found: Workspace[] = [];
  for (const group of GROUPS) {
    for (const entry of readdirSync(join(REPO_ROOT, group))) {
      const dir = join(REPO_ROOT, group, entry);
      const manifest = join(dir, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8")) as { name: string; dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
      found.push({ name: pkg.name, group, dir, declared: new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]) });
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      if (entry === "node_modules" || entry === "dist") continue;
      const path = join(d, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE_FILE.test(entry) && !entry.endsWith(".d.ts")) out.push(path);
    }
  };
  for (const folder of SOURCE_FOLDERS) if (existsSync(join(dir, folder))) walk(join(dir, folder));
  return out;
}

/** Every module a file imports or re-exports, statically or with `import()`, as TypeScript reads them. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/** The workspace package a bare specifier names (`@agentq/rest/testing/matrix` -> `@agentq/rest`), or null. */
function packageNameOf(specifier: string): string | null {
  const match = /^(@agentq\/[^/]+)/.exec(specifier);
  return match === null ? null : (match[1] ?? null);
}

/** Why `from` may not import `specifier`, or null when it may. */
function refusal(from: Workspace, file: string, specifier: string, byName: ReadonlyMap<string, Workspace>): string | null {
  if (specifier.startsWith(".")) {
    const target = resolve(dirname(file), specifier);
    return target === from.dir || target.startsWith(from.dir + sep) ? null : `leaves ${relative(REPO_ROOT, from.dir)} by a relative path`;
  }
  const name = packageNameOf(specifier);
  const to = name === null ? undefined : byName.get(name);
  if (to === undefined || to === from) return null;
  if (!from.declared.has(to.name)) return `imports ${to.name}, which ${from.name}'s package.json does not declare`;
  if (to.group !== "apps") return null;
  if (from.group === "packages") return `a package imports the app ${to.name}`;
  if (from.group === "tooling") return /^@agentq\/[^/]+\/testing(?:\/|$)/.test(specifier) ? null : `tooling imports the app ${to.name} other than through its public testing export`;
  return (COMPOSES_APPS[from.name] ?? []).includes(to.name) ? null : `the app ${from.name} imports the app ${to.name}`;
}

describe("house rules: which package may import which", () => {
  const all = workspaces();
  const byName = new Map(all.map((w) => [w.name, w]));

  it("finds every workspace package and its sources", () => {
    expect(all.map((w) => w.name)).toEqual(expect.arrayContaining(["@agentq/core", "@agentq/http", "@agentq/runtime", "@agentq/postgres", "@agentq/rest", "@agentq/mcp", "@agentq/server"]));
    expect(sourceFiles(byName.get("@agentq/rest")!.dir).length).toBeGreaterThan(10);
  });

  it("no app imports another app (apps/server composes them through their public exports), no package imports an app, tooling reaches apps only through a testing export, and no relative import leaves its package", () => {
    const broken: string[] = [];
    for (const from of all) {
      for (const file of sourceFiles(from.dir)) {
        for (const specifier of importsOf(file)) {
          const why = refusal(from, file, specifier, byName);
          if (why !== null) broken.push(`${relative(REPO_ROOT, file)}: "${specifier}" (${why})`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("no package.json declares a dependency the rules refuse", () => {
    const broken: string[] = [];
    for (const from of all) {
      for (const dep of from.declared) {
        const to = byName.get(dep);
        if (to === undefined || to === from || to.group !== "apps") continue;
        if (from.group === "packages") broken.push(`${from.name} depends on the app ${to.name}`);
        if (from.group === "apps" && !(COMPOSES_APPS[from.name] ?? []).includes(to.name)) broken.push(`${from.name} depends on the app ${to.name}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("writes the service's default address once (@agentq/runtime's default-address.ts): no other production source has it as a literal", () => {
    // Tests and test support may name it; so may the documented-commands checks, which match the docs' text.
    const isProduction = (file: string) => !/\.test\.[a-z]+$|[/\\]testing[/\\]|[/\\]docs-commands[/\\]/.test(file);
    const found: string[] = [];
    for (const w of all) {
      for (const file of sourceFiles(w.dir).filter(isProduction)) {
        if (/["'`]https?:\/\/(?:127\.0\.0\.1|localhost):8080/.test(readFileSync(file, "utf8"))) found.push(relative(REPO_ROOT, file));
      }
    }
    expect(found).toEqual([]);
  });
});
