import { pgTestProject } from "./src/testing/pg-test-project.ts";

export default pgTestProject("postgres", { testTimeout: 30_000, hookTimeout: 60_000 });
