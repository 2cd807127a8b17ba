import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { repoRoot, startEmbeddedPostgres } from "../embedded.ts";

/** A PostgreSQL server for a test run, and how to let go of it. */
export interface TestDatabase {
  url: string;
  source: "DATABASE_URL" | "testcontainers" | "embedded";
  /** Stops what this run started (nothing for DATABASE_URL). */
  stop(): Promise<void>;
}

/** Where the test run's embedded PostgreSQL keeps its data (apart from the development one). */
export const TEST_EMBEDDED_DATA_DIR = join(repoRoot(), ".data", "pg-test");

/**
 * True when a container runtime may answer: DOCKER_HOST is set or a Docker socket exists. A
 * file check only, so machines without a runtime never wait on a connection attempt.
 */
function containerRuntimeMayAnswer(): boolean {
  if (process.env.DOCKER_HOST) return true;
  return ["/var/run/docker.sock", join(homedir(), ".docker", "run", "docker.sock"), join(homedir(), ".colima", "default", "docker.sock")].some((p) => existsSync(p));
}

async function startContainer(): Promise<TestDatabase> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer("postgres:17-alpine")
    .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust", POSTGRES_DB: "test" })
    .withCommand(["postgres", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"])
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .withStartupTimeout(60_000)
    .start();
  return {
    url: `postgres://postgres@${container.getHost()}:${container.getMappedPort(5432)}/test`,
    source: "testcontainers",
    stop: async () => {
      await container.stop();
    },
  };
}

/**
 * Provides the test run's PostgreSQL (STYLE §Tests): DATABASE_URL when set; else a
 * testcontainers PostgreSQL 17 when a container runtime answers; else the embedded PostgreSQL
 * (its own data directory `.data/pg-test`, durability settings off for speed).
 */
export async function startTestDatabase(): Promise<TestDatabase> {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) return { url: fromEnv, source: "DATABASE_URL", stop: async () => undefined };
  if (containerRuntimeMayAnswer()) {
    try {
      return await startContainer();
    } catch {
      // No usable runtime after all: fall through to the embedded server.
    }
  }
  const pg = await startEmbeddedPostgres({
    dataDir: TEST_EMBEDDED_DATA_DIR,
    port: 54339,
    settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off", max_connections: "400" },
  });
  return { url: pg.url, source: "embedded", stop: () => pg.stop() };
}
