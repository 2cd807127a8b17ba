import * as linguist from "linguist-languages";
import { describe, expect, it } from "vitest";
import { buildLanguageTable, type LinguistLanguage } from "./language-table-build.ts";
import { LANGUAGE_TABLE } from "./language-table.ts";

describe("the language table", () => {
  it("is what linguist-languages gives (after an upgrade: pnpm --filter @agentq/core exec tsx scripts/render-language-table.ts)", () => {
    expect(LANGUAGE_TABLE).toEqual(buildLanguageTable(Object.values(linguist) as LinguistLanguage[]));
  });
});
