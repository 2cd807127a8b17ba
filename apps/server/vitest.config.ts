// The config loader bundles relative files only (a package name would be loaded by Node, which cannot read .ts).
import { pgTestProject } from "../../packages/postgres/src/testing/pg-test-project.ts";

// A server process started in a hook may take a minute on a loaded 2-core machine (tsx compiles the sources).
export default pgTestProject("server", { testTimeout: 60_000, hookTimeout: 120_000 });
