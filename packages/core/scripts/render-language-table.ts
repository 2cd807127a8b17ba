// Regenerates src/session-state/rules/language-table.ts from linguist-languages (run with tsx after
// upgrading the package: pnpm --filter @agentq/core exec tsx scripts/render-language-table.ts).
import { readFileSync, writeFileSync } from "node:fs";
import * as linguist from "linguist-languages";
import { buildLanguageTable, renderLanguageTable, type LinguistLanguage } from "../src/session-state/rules/language-table-build.ts";

const version = (JSON.parse(readFileSync(new URL("../node_modules/linguist-languages/package.json", import.meta.url), "utf8")) as { version: string }).version;
writeFileSync(new URL("../src/session-state/rules/language-table.ts", import.meta.url), renderLanguageTable(buildLanguageTable(Object.values(linguist) as LinguistLanguage[]), version));
