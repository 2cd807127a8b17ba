#!/usr/bin/env node
// The `agentq` binary: runs src/main.ts through tsx (the workspace runs TypeScript sources
// directly, without a build step).
import { register } from "tsx/esm/api";

register();
await import(new URL("../src/main.ts", import.meta.url).href);
