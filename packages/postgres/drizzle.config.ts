import { defineConfig } from "drizzle-kit";

// Migrations are generated from src/schema by `pnpm --filter @agentq/postgres db:generate` and
// committed; hand-written ones (`drizzle-kit generate --custom`) hold what drizzle-kit cannot
// express (functions, storage parameters).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema/index.ts",
  out: "./migrations",
});
