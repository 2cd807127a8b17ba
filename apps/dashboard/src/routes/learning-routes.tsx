/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { PageKit } from "../page-kit.tsx";
import { CandidatePage, CandidatesPage } from "../pages/candidates-page.tsx";
import { NoProjects } from "../pages/learning-parts.tsx";
import { LessonPage, LessonsPage } from "../pages/lessons-page.tsx";
import type { ProjectWire } from "../pages/projects-page.tsx";
import { RulePage, RulesPage } from "../pages/rules-page.tsx";
import type { CandidateWire, LessonDetailWire, LessonWire, Page, RuleWire } from "../wire.ts";

/** The projects a filter offers, and the one shown: `?project=`, else the default project, else the first; null when there is none. */
async function chooseProject(kit: PageKit, c: Context<DashboardEnv>): Promise<{ projects: ProjectWire[]; project: ProjectWire } | null> {
  const projects = (await kit.run<Page<ProjectWire>>(c, { name: "list_projects", input: { limit: 100 } })).items;
  const asked = c.req.query("project") || undefined;
  if (asked === undefined) {
    const project = projects.find((p) => p.is_default) ?? projects[0];
    return project === undefined ? null : { projects, project };
  }
  // Beyond the first hundred, or another workspace's (404, as REST answers it).
  const project = projects.find((p) => p.id === asked) ?? (await kit.run<ProjectWire>(c, { name: "get_project", input: { project_id: asked } }));
  return { projects: projects.some((p) => p.id === project.id) ? projects : [...projects, project], project };
}

/** The query parameters a list passes on (empty ones left out, so the operation applies its default). */
function listQuery(c: Context<DashboardEnv>, names: readonly string[]): Record<string, string | undefined> {
  return Object.fromEntries(names.map((n) => [n, c.req.query(n) || undefined]));
}

/** Pending candidates of a project (the count the Candidates link shows). */
async function pendingCandidates(kit: PageKit, c: Context<DashboardEnv>, projectId: string): Promise<number> {
  const counts = await kit.run<{ by_status: Record<string, number> }>(c, { name: "count_lesson_candidates", input: { project_id: projectId } });
  return counts.by_status.pending ?? 0;
}

/**
 * The agents' lessons, lesson candidates and rules (SESSION-STATE §6-8), read through the
 * catalogue's list and get operations like every page. They are read-only here: their writes
 * need write_session_state, which no person's session holds (docs/decisions.md).
 */
export function registerLearningRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  app.get("/lessons", async (c) => {
    const chosen = await chooseProject(kit, c);
    if (chosen === null) return kit.page(c, { title: "Lessons", current: "lessons" }, <NoProjects what="lessons" />);
    const query: Record<string, string | undefined> = { project: chosen.project.id, ...listQuery(c, ["status", "cursor"]) };
    const [lessons, pending] = await Promise.all([kit.run<Page<LessonWire>>(c, { name: "list_lessons", input: { project_id: chosen.project.id, status: query.status, cursor: query.cursor } }), pendingCandidates(kit, c, chosen.project.id)]);
    return kit.page(c, { title: "Lessons", current: "lessons" }, <LessonsPage projects={chosen.projects} project={chosen.project} lessons={lessons} pending={pending} query={query} />);
  });
  app.get("/lessons/:id", async (c) => {
    const lesson = await kit.run<LessonDetailWire>(c, { name: "get_lesson", input: { lesson_id: c.req.param("id") } });
    const rules = await kit.run<Page<RuleWire>>(c, { name: "list_rules", input: { project_id: lesson.project_id, source_lesson_id: lesson.id, status: "any", limit: 20 } });
    return kit.page(c, { title: lesson.title, current: "lessons" }, <LessonPage lesson={lesson} rules={rules.items} />);
  });

  app.get("/lesson-candidates", async (c) => {
    const chosen = await chooseProject(kit, c);
    if (chosen === null) return kit.page(c, { title: "Lesson candidates", current: "lessons" }, <NoProjects what="lesson candidates" />);
    const query: Record<string, string | undefined> = { project: chosen.project.id, ...listQuery(c, ["status", "cursor"]) };
    const [candidates, pending] = await Promise.all([kit.run<Page<CandidateWire>>(c, { name: "list_lesson_candidates", input: { project_id: chosen.project.id, status: query.status, cursor: query.cursor } }), pendingCandidates(kit, c, chosen.project.id)]);
    return kit.page(c, { title: "Lesson candidates", current: "lessons" }, <CandidatesPage projects={chosen.projects} project={chosen.project} candidates={candidates} pending={pending} query={query} />);
  });
  app.get("/lesson-candidates/:id", async (c) => {
    const candidate = await kit.run<CandidateWire>(c, { name: "get_lesson_candidate", input: { lesson_candidate_id: c.req.param("id") } });
    return kit.page(c, { title: candidate.title, current: "lessons" }, <CandidatePage candidate={candidate} />);
  });

  app.get("/rules", async (c) => {
    const chosen = await chooseProject(kit, c);
    if (chosen === null) return kit.page(c, { title: "Rules", current: "rules" }, <NoProjects what="rules" />);
    const query: Record<string, string | undefined> = { project: chosen.project.id, ...listQuery(c, ["status", "level", "cursor"]) };
    const rules = await kit.run<Page<RuleWire>>(c, { name: "list_rules", input: { project_id: chosen.project.id, status: query.status, level: query.level, cursor: query.cursor } });
    return kit.page(c, { title: "Rules", current: "rules" }, <RulesPage projects={chosen.projects} project={chosen.project} rules={rules} query={query} />);
  });
  app.get("/rules/:id", async (c) => {
    const rule = await kit.run<RuleWire>(c, { name: "get_rule", input: { rule_id: c.req.param("id") } });
    return kit.page(c, { title: rule.title, current: "rules" }, <RulePage rule={rule} />);
  });
}
