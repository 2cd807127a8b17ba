import { renderErrorsDoc } from "@agentq/core";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("docs/errors.md", () => {
  it("equals what the error catalogue renders (run `pnpm docs:errors` after changing errors.ts)", () => {
    const committed = readFileSync(new URL("../../../docs/errors.md", import.meta.url), "utf8");
    expect(committed).toBe(renderErrorsDoc());
  });
});
