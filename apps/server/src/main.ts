// `pnpm start`: REST at /v1, MCP at /mcp and the metadata documents on one port, over
// DATABASE_URL or the embedded PostgreSQL, with the background work (audit sealer, sweeps,
// webhook dispatcher) running.
import { runServiceProcess } from "./run-service.ts";

runServiceProcess({ serves: "all", background: true });
