// Regenerates docs/errors.md from the error catalogue (pnpm docs:errors).
import { writeFileSync } from "node:fs";
import { renderErrorsDoc } from "@agentq/core";

writeFileSync(new URL("../../../../docs/errors.md", import.meta.url), renderErrorsDoc());
