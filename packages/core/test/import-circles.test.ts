import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importCircles, importGraph } from "./import-graph.ts";

// STYLE, "As the house grows": no file imports one that imports it back. Type-only imports
// count: a type circle ties the files' layers together just the same (issue 27).
const ROOTS = {
  "packages/core/src": fileURLToPath(new URL("../src", import.meta.url)),
  "packages/postgres/src": fileURLToPath(new URL("../../postgres/src", import.meta.url)),
};

describe("no import circle between files (issue 27)", () => {
  for (const [name, root] of Object.entries(ROOTS)) {
    it(`${name} has none, type imports included`, () => {
      const graph = importGraph(root);
      expect(graph.size).toBeGreaterThan(50);
      const circles = importCircles(graph).map((c) => `${c.files.length} files, e.g. ${c.cycle.join(" -> ")}`);
      expect(circles).toEqual([]);
    });
  }

  it("sees every kind of import: a planted circle of type imports, re-exports and import types is found", () => {
    const dir = mkdtempSync(join(tmpdir(), "import-circles-"));
    const files: Record<string, string> = {
      "a.ts": 'import type {\n  B,\n} from "./b.ts";\nexport type A = B;\n',
      "b.ts": 'export { type C as B } from "./nested/c.js";\n',
      "nested/c.ts": 'export type C = import("../a.ts").A | "./d.ts";\n',
      "d.ts": 'import { x } from "@sinclair/typebox";\nimport "./a.ts";\n',
    };
    for (const [name, text] of Object.entries(files)) {
      if (name.includes("/")) mkdirSync(join(dir, "nested"), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
    const graph = importGraph(dir);
    rmSync(dir, { recursive: true });
    expect(graph.get("d.ts")).toEqual(["a.ts"]);
    expect(importCircles(graph)).toEqual([{ files: ["a.ts", "b.ts", "nested/c.ts"], cycle: ["a.ts", "b.ts", "nested/c.ts", "a.ts"] }]);
  });
});
