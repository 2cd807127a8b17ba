import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PRODUCTION_NODE_FLAGS } from "./bundle.ts";

// The benchmark and the fault run start the server with PRODUCTION_NODE_FLAGS; what operators run
// (`pnpm start:prod`, the Docker image) must be the same command, or the figures describe another process.
describe("the production server's node flags", () => {
  it("pnpm start:prod runs the bundle with them", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts["start:prod"]).toBe(["node", ...PRODUCTION_NODE_FLAGS, "dist/agentq-server.mjs"].join(" "));
  });

  it("the Docker image's CMD runs the bundle with them", () => {
    const dockerfile = readFileSync(new URL("../../../docker/Dockerfile", import.meta.url), "utf8");
    const cmd = /^CMD (.+)$/m.exec(dockerfile)?.[1];
    expect(cmd === undefined ? null : JSON.parse(cmd)).toEqual(["node", ...PRODUCTION_NODE_FLAGS, "apps/server/dist/agentq-server.mjs"]);
  });
});
