import type { BenchContext } from "./context.ts";
import { apiClient, expectStatus } from "./http-client.ts";
import { runLoad } from "./load.ts";
import { perSecond, summarise } from "./stats.ts";

/** In-flight requests of S8. */
export const RULES_IN_FLIGHT = 8;
/** Active rules of S8's project and paths of its change. */
export const RULES_ACTIVE = 200;
export const CHANGE_PATHS = 20;

const DIRS = ["api", "db", "web", "cli", "queue", "auth", "mail", "billing", "search", "audit", "admin", "jobs", "cache", "files", "media", "notify", "export", "import", "report", "sync"];
const LANGS = ["typescript", "python", "go", "sql", "markdown"];
const EXTS = ["ts", "py", "go", "sql", "md"];

/**
 * The triggers of rule `i` of 200: path globs over twenty packages and five languages (each
 * package and language twice), some with operations, languages, code patterns or project
 * attributes too, and a few always_apply, so a change meets the whole matcher and a part of the
 * rules applies.
 */
function triggersOf(i: number): { triggers: Record<string, unknown>; always_apply?: boolean } {
  const dir = DIRS[i % DIRS.length] ?? "api";
  const ext = EXTS[Math.floor(i / DIRS.length) % EXTS.length] ?? "ts";
  if (i % 50 === 0) return { triggers: {}, always_apply: true };
  const triggers: Record<string, unknown> = { paths: [`packages/${dir}/**/*.${ext}`, `apps/${dir}/src/**`] };
  if (i % 3 === 0) triggers.operations = ["modify", "delete"];
  if (i % 4 === 0) triggers.languages = [LANGS[i % LANGS.length]];
  if (i % 7 === 0) triggers.code_patterns = [`console\\.log\\(|TODO\\(${dir}\\)`, `(?i)drop\\s+table\\s+${dir}`];
  if (i % 11 === 0) triggers.project_attributes = { runtime: ["node", "bun"] };
  return { triggers };
}

/**
 * S8: POST /v1/rules/applicable with 200 active rules in the project and a change of 20 paths in
 * three packages (modify, two code snippets), 8 in flight: what asking "which rules apply?"
 * before every change costs.
 */
export async function runRules(ctx: BenchContext): Promise<void> {
  const client = apiClient(ctx.server.baseUrl, RULES_IN_FLIGHT);
  try {
    const token = ctx.fixture.sessionAgent.token;
    const project = expectStatus(await client.call(token, "POST", "/v1/projects", { name: "bench rules", attributes: { runtime: "node" } }), 201, "create project").body;
    const lesson = expectStatus(await client.call(token, "POST", "/v1/lessons", { project_id: project.id, title: "Bench lesson", body_md: "Do: follow the package's conventions." }), 201, "create lesson").body;
    ctx.log(`S8 setup: ${RULES_ACTIVE} rules`);
    for (let i = 0; i < RULES_ACTIVE; i++) {
      expectStatus(await client.call(token, "POST", "/v1/rules/derive", { lesson_id: lesson.id, slug: `bench-rule-${i}`, title: `Bench rule ${i}`, body_md: `Rule ${i}: keep ${DIRS[i % DIRS.length] ?? ""} tidy.`, level: ["must", "should", "may"][i % 3], ...triggersOf(i) }), 201, `derive rule ${i}`);
    }
    // A change in three packages: 20 files of five languages.
    const paths = Array.from({ length: CHANGE_PATHS }, (_, i) => `${i % 2 === 0 ? "packages" : "apps"}/${DIRS[i % 3] ?? "api"}/${i % 2 === 0 ? "lib/" : "src/"}file${i}.${EXTS[i % EXTS.length] ?? "ts"}`);
    const body = { project_id: project.id, paths, operations: ["modify"], code: ["const x = 1;\nconsole.log(x);", "-- migration\nselect 1;"] };
    const first = expectStatus(await client.call(token, "POST", "/v1/rules/applicable", body), 200, "rules applicable").body;
    ctx.log(`S8 POST /v1/rules/applicable: ${(first.rules as unknown[]).length} of ${String(first.evaluated)} rules apply; ${RULES_IN_FLIGHT} in flight, ${ctx.sizes.levelMs / 1000} s`);
    const r = await runLoad({
      name: "S8",
      inFlight: RULES_IN_FLIGHT,
      maxOps: 10_000_000,
      maxMs: ctx.sizes.levelMs,
      op: async () => {
        expectStatus(await client.call(token, "POST", "/v1/rules/applicable", body), 200, "rules applicable");
      },
      log: ctx.log,
    });
    const s = summarise(r.latencies);
    ctx.m.set(`S8.applicable@${RULES_IN_FLIGHT}`, perSecond(r.count, r.elapsedMs));
    ctx.m.set(`S8.p50@${RULES_IN_FLIGHT}`, s.p50);
    ctx.log(`  ${perSecond(r.count, r.elapsedMs).toFixed(0)} req/s, p50 ${s.p50.toFixed(2)} ms`);
  } finally {
    await client.close();
  }
}
