// Types of the shared ESLint config (index.js), for the tests that check the core's allow-list.
import type { Linter } from "eslint";

/** The only packages packages/core may import (DESIGN §1). */
export declare const CORE_ALLOWED_IMPORTS: readonly string[];
/** What the core's tests and its `testing/` entry may import besides. */
export declare const CORE_TEST_ALLOWED_IMPORTS: readonly string[];
/** The `no-restricted-imports` setting that lets through only relative imports and `allowed` packages. */
export declare function onlyImportsOf(allowed: readonly string[]): Linter.RuleEntry;
/** The shared flat config; `core: true` adds the core's import allow-list. */
export declare function agentqConfig(options: { tsconfigRootDir: string; core?: boolean }): Linter.Config[];
