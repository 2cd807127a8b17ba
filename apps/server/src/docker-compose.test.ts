import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

// docker/compose.yaml and docker/Dockerfile (docs/decisions.md, "Compose"): the file is valid
// with no variable set, PostgreSQL is not published on the host, and the server keeps its
// generated secret in a volume of its own that its user can write. No container engine runs
// here, so these are checks of the files; `docker-compose config` runs too where it is installed.

const DOCKER_DIR = fileURLToPath(new URL("../../../docker/", import.meta.url));
const composeText = readFileSync(`${DOCKER_DIR}compose.yaml`, "utf8");
const dockerfile = readFileSync(`${DOCKER_DIR}Dockerfile`, "utf8");

interface Service {
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
}
const compose = parse(composeText) as { services: Record<string, Service>; volumes?: Record<string, unknown> };

function hasDockerCompose(): boolean {
  return spawnSync("docker-compose", ["version"], { stdio: "ignore" }).status === 0;
}

describe("docker/compose.yaml", () => {
  it("needs no variable: every interpolation has a default, none is mandatory", () => {
    const interpolations = [...composeText.matchAll(/\$\{([^}]*)\}/g)].map((m) => m[1] ?? "");
    expect(interpolations.length).toBeGreaterThan(0);
    for (const expr of interpolations) expect(expr).toMatch(/^[A-Z_][A-Z0-9_]*:?-/);
    // A bare $VAR would be interpolated (to empty, with a warning) too.
    expect(composeText).not.toMatch(/\$[A-Za-z_]/);
  });

  it("does not publish PostgreSQL on the host; the server reaches it over the compose network", () => {
    const { postgres, server } = compose.services;
    expect(postgres).toBeDefined();
    expect(postgres?.ports).toBeUndefined();
    expect(server?.environment?.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(server?.depends_on?.postgres?.condition).toBe("service_healthy");
    for (const published of server?.ports ?? []) expect(published).toMatch(/^127\.0\.0\.1:/);
  });

  it("takes SVC_SECRET_KEY when given, else keeps the generated one in a named volume the server's user owns", () => {
    const server = compose.services.server;
    expect(server?.environment?.SVC_SECRET_KEY).toBe("${SVC_SECRET_KEY:-}");
    const dataDir = server?.environment?.AGENTQ_DATA_DIR;
    expect(dataDir).toMatch(/^\//);
    const mount = (server?.volumes ?? []).map((v) => v.split(":")).find(([, target]) => target === dataDir);
    expect(mount).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(mount?.[0]);
    // A fresh named volume takes the ownership of the image's folder: it must belong to `node`.
    expect(dockerfile).toContain(`chown node:node ${dataDir}`);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it.skipIf(!hasDockerCompose())("passes `docker-compose -f docker/compose.yaml config` with SVC_SECRET_KEY unset", () => {
    const env = { ...process.env };
    delete env.SVC_SECRET_KEY;
    // An empty env file stands in for an operator's docker/.env, which may set the key.
    const emptyEnvFile = join(mkdtempSync(join(tmpdir(), "agentq-compose-")), "empty.env");
    writeFileSync(emptyEnvFile, "");
    const result = spawnSync("docker-compose", ["--env-file", emptyEnvFile, "-f", `${DOCKER_DIR}compose.yaml`, "config"], { env, encoding: "utf8" });
    rmSync(dirname(emptyEnvFile), { recursive: true, force: true });
    expect(result.status, result.stderr).toBe(0);
    expect((parse(result.stdout) as { services: Record<string, Service> }).services.server?.environment?.SVC_SECRET_KEY).toBe("");
  });
});
