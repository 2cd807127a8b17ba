// The config loader bundles relative files only (a package name would be loaded by Node, which cannot read .ts).
import { pgTestProject } from "../../packages/postgres/src/testing/pg-test-project.ts";

export default pgTestProject("dispatcher", { testTimeout: 60_000, hookTimeout: 60_000 });
