// `pnpm build`: the production bundle of the server, apps/server/dist/agentq-server.mjs, run by
// `pnpm start:prod` (and the Docker image). `pnpm start` runs the same source through tsx.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleServer } from "./bundle.ts";

const serverDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = await bundleServer(serverDir, join(serverDir, "dist"));
process.stdout.write(`built ${outfile}\n`);
