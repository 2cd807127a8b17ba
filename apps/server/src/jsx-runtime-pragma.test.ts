import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * The first line of every .tsx file. It fixes the JSX transform in the file itself, so every
 * transformer (tsx under any working directory and any tsconfig, esbuild's bundle, vitest) renders
 * it with Hono's JSX. A tsconfig's `jsx` options reach only the files its `include` covers, and tsx
 * reads the tsconfig of the directory it starts in: `pnpm start` once served every dashboard page
 * as a 500 ("React is not defined") while every test passed.
 */
export const JSX_PRAGMA = "/** @jsxRuntime automatic @jsxImportSource hono/jsx */";

function tsxFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tsxFiles(path, out);
    else if (entry.name.endsWith(".tsx")) out.push(path);
  }
  return out;
}

describe("JSX in every .tsx renders with Hono's JSX, whatever starts it (issue 26)", () => {
  const files = ["packages", "apps", "tooling"].flatMap((d) => tsxFiles(join(REPO, d)));

  it("every .tsx file starts with the JSX pragma", () => {
    expect(files.length).toBeGreaterThan(0);
    const without = files.filter((f) => readFileSync(f, "utf8").split("\n", 1)[0] !== JSX_PRAGMA).map((f) => relative(REPO, f));
    expect(without).toEqual([]);
  });

  it("a dashboard page renders through tsx started outside the repository (no tsconfig applies)", () => {
    const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
    const page = pathToFileURL(join(REPO, "apps/dashboard/src/pages/sign-in-page.tsx")).href;
    const script = `const { SignInPage } = await import(${JSON.stringify(page)}); process.stdout.write(String(SignInPage({ returnTo: "/", oidcLabel: null })));`;
    const html = execFileSync(process.execPath, ["--import", tsxLoader, "--input-type=module", "-e", script], { cwd: tmpdir(), encoding: "utf8" });
    expect(html).toContain('<form class="panel stack" method="post" action="/sign-in">');
  });
});
