import { startEmbeddedPostgres } from "@agentq/postgres";
const pg = await startEmbeddedPostgres({ dataDir: "/tmp/pgss-data", settings: { max_connections: "200", max_wal_size: "4GB", shared_preload_libraries: "pg_stat_statements", "pg_stat_statements.track": "all" } });
console.log(pg.url);
setInterval(() => {}, 1 << 30);
