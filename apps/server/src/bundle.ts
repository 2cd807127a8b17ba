import { build } from "esbuild";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The node flags the production server runs with (`pnpm start:prod`, the Docker image's CMD, the
 * benchmark and the fault run; `production-node-flags.test.ts` holds the first two to it).
 * `--heap-growing-percent=100`: V8 lets the old generation grow to twice what survived the last
 * full collection before the next one, instead of up to several times it under a high allocation
 * rate. Under the soak the server's RSS peaked at 201 MB instead of 210-257 MB (150,000 messages);
 * 20 % kept it at 150 MB but ran a full collection every few hundred requests, and cost S1 a fifth of
 * its throughput once the round's features grew the live heap (docs/performance.md, lever x).
 * Unlike `--max-old-space-size` it sets no ceiling, so a burst of large bodies costs collections,
 * never an out-of-memory exit.
 */
export const PRODUCTION_NODE_FLAGS: readonly string[] = ["--heap-growing-percent=100"];

/**
 * Bundles `serverDir`'s src/main.ts (the same source `pnpm start` runs through tsx) into one ES
 * module under `outDir` (`pnpm build`: apps/server/dist/agentq-server.mjs), the production form
 * of the server: a plain `node` start takes about a second rather than tsx's several, and the
 * process holds about 65 MB at rest instead of about 155 MB (no TypeScript loader, no per-module
 * transform cache). The benchmark and the fault-injection run start their servers from it. Each
 * source file keeps its own `import.meta.url` (the migrations folder and the repository root are
 * found relative to it), and CommonJS dependencies get a `require`. `@node-rs/argon2` stays
 * outside the bundle (it loads a native .node binary per platform): the bundle imports it by its
 * absolute path in this checkout's node_modules (resolved from the file that imports it, in
 * @agentq/runtime), so a bundle written anywhere (the fault run and the benchmark write theirs to
 * a temporary folder) still finds it.
 * @returns the bundle's path.
 */
export async function bundleServer(serverDir: string, outDir: string): Promise<string> {
  const outfile = join(outDir, "agentq-server.mjs");
  await build({
    absWorkingDir: serverDir,
    entryPoints: ["src/main.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
    banner: { js: "import { createRequire as __agentqCreateRequire } from 'node:module'; const require = __agentqCreateRequire(import.meta.url);" },
    plugins: [
      {
        name: "native-argon2-outside",
        setup(b) {
          b.onResolve({ filter: /^@node-rs\/argon2$/ }, (args) => ({ path: createRequire(args.importer).resolve(args.path), external: true }));
        },
      },
      {
        name: "source-import-meta-url",
        setup(b) {
          b.onLoad({ filter: /\.ts$/ }, async (args) => {
            if (args.path.includes("/node_modules/")) return undefined;
            const text = await readFile(args.path, "utf8");
            return { contents: text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)), loader: "ts" };
          });
        },
      },
    ],
  });
  return outfile;
}
