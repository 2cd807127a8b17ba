import { defineConfig } from "vitest/config";

// One run for the whole monorepo. PostgreSQL-backed tests share one server started by the
// global setup (DATABASE_URL, else testcontainers, else embedded) and each file gets its own
// schema.
export default defineConfig({
  test: {
    projects: ["packages/*", "apps/*", "tooling/*"],
  },
});
